# LinnOS's routing and history freshness (examples/linnos/route.c).
UNIT_TESTS += linnos_route
UNIT_SRCS_linnos_route := examples/linnos/route.c
