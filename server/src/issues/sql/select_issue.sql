SELECT {{issue_columns}} FROM issues i WHERE i.id = $1::uuid
