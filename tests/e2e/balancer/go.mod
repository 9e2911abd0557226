module hotel/balancer

go 1.24
