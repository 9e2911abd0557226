# Writes OUTPUT, a header of the statements in SOURCE_DIR/*.sql as constants of namespace
# hotel::sql::AREA: lock_room.sql becomes `kLockRoom`. A statement is used by name and a missing
# one fails the build. Parameters are $1..$n, bound by the caller (db::SqlQuery::params).
#
# A file whose name starts with "_" is a fragment, written once and used by several statements:
# `{{issue_columns}}` in a statement is replaced by _issue_columns.sql here, at build time, so every
# statement is whole, fixed text. Fragments are constants too (kIssueColumns), for the builders of
# list queries with optional filters. An unknown `{{name}}` fails the build. The fragments of
# SHARED_DIR (src/db/sql) may be used by every area's statements: a definition several areas
# share, such as {{open_issue_statuses}}, is written once there.
file(GLOB files ${SOURCE_DIR}/*.sql)
list(SORT files)
set(fragment_files ${files})
if(SHARED_DIR AND NOT SHARED_DIR STREQUAL SOURCE_DIR)
  file(GLOB shared ${SHARED_DIR}/_*.sql)
  list(APPEND fragment_files ${shared})
endif()

function(sql_constant_name file out)
  get_filename_component(name ${file} NAME_WE)
  string(REPLACE "_" ";" parts "${name}")
  set(constant "k")
  foreach(part IN LISTS parts)
    if(part)
      string(SUBSTRING "${part}" 0 1 first)
      string(SUBSTRING "${part}" 1 -1 rest)
      string(TOUPPER "${first}" first)
      string(APPEND constant "${first}${rest}")
    endif()
  endforeach()
  set(${out} ${constant} PARENT_SCOPE)
endfunction()

function(read_sql file out)
  file(READ ${file} sql)
  # Comment lines (-- ...) are for readers of the file, not for PostgreSQL.
  string(REGEX REPLACE "(^|\n)[ ]*--[^\n]*" "" sql "${sql}")
  string(STRIP "${sql}" sql)
  set(${out} "${sql}" PARENT_SCOPE)
endfunction()

set(fragments "")
set(names "")
foreach(f ${fragment_files})
  get_filename_component(name ${f} NAME_WE)
  if(name MATCHES "^_(.+)$")
    read_sql(${f} sql)
    set(fragment_${CMAKE_MATCH_1} "${sql}")
    list(APPEND fragments ${CMAKE_MATCH_1})
  endif()
endforeach()

set(body "")
foreach(f ${files})
  get_filename_component(name ${f} NAME_WE)
  sql_constant_name(${f} constant)
  read_sql(${f} sql)
  # Twice: a fragment may use another one ({{issue_columns}} uses {{open_issue_statuses}}).
  foreach(pass 1 2)
    foreach(fragment IN LISTS fragments)
      string(REPLACE "{{${fragment}}}" "${fragment_${fragment}}" sql "${sql}")
    endforeach()
  endforeach()
  if(sql MATCHES "{{([a-z_]+)}}")
    message(FATAL_ERROR "${AREA}/sql/${name}.sql: no fragment _${CMAKE_MATCH_1}.sql for {{${CMAKE_MATCH_1}}}")
  endif()
  string(APPEND body "// ${AREA}/sql/${name}.sql\ninline constexpr absl::string_view ${constant} = R\"hotelsql(${sql})hotelsql\";\n\n")
  if(NOT name MATCHES "^_")
    string(APPEND names "    {${constant}, \"${AREA}/${name}\"},\n")
  endif()
endforeach()
# Each statement's name (area/file) for its trace spans (db/statement_names.h): never its values.
if(names)
  string(APPEND body "inline const bool kStatementNamesRegistered = ::hotel::db::RegisterStatementNames({\n${names}});\n\n")
endif()
file(WRITE ${OUTPUT}.tmp "// Generated from server/src/${AREA}/sql/*.sql by server/cmake/embed_sql.cmake; do not edit.\n#pragma once\n\n#include \"absl/strings/string_view.h\"\n#include \"db/statement_names.h\"\n\nnamespace hotel::sql::${AREA} {\n\n${body}}  // namespace hotel::sql::${AREA}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
