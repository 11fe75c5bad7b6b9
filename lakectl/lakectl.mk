# lakectl: lakelib's state over the lake genl family. Dynamic, like laked:
# the initramfs carries its shared libraries.
LAKECTL_SRCS := lakectl/lakectl.c lakectl/ipc.c
GUEST_BINS += $(BUILD)/guest/lakectl
$(BUILD)/guest/lakectl: $(LAKECTL_SRCS) lakectl/ipc.h include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(NL_CFLAGS) $(LAKECTL_SRCS) -o $@ $(NL_LIBS)

# The VM test parses --json with a real JSON parser.
GUEST_BINS += $(BUILD)/guest/jq
$(BUILD)/guest/jq: /usr/bin/jq
	@mkdir -p $(@D)
	cp $< $@
