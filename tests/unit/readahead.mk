# examples/readahead's model core on the host: the file the module links.
UNIT_TESTS += readahead
UNIT_SRCS_readahead := examples/readahead/model.c
