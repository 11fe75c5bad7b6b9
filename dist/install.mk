# `make install`: what a system needs to run lake and to build modules on it.
# Included by the top Makefile. DESTDIR stages; PREFIX (/usr/local) places
# programs, headers, man pages, the unit and the module configuration;
# module sources go to /usr/src/lake-VERSION whatever PREFIX is, since DKMS
# only looks there, and LinnOS's weights to /lib/firmware/linnos (where
# request_firmware looks). Debian's packaging (debian/rules) uses PREFIX=/usr.

LAKE_VERSION	:= $(shell cat VERSION)
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
# Headers keep the tree's layout, lake/ and uapi/lake/: lake's headers
# include the ABI ones as <uapi/lake/NAME.h>, here as in the tree and DKMS's.
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
LAKELIBDIR	?= $(PREFIX)/lib/lake
SYSCONFDIR	?= /etc
UNITDIR		?= $(PREFIX)/lib/systemd/system
MODULESLOADDIR	?= $(PREFIX)/lib/modules-load.d
MODPROBEDIR	?= $(PREFIX)/lib/modprobe.d
SYSUSERSDIR	?= $(PREFIX)/lib/sysusers.d
DKMSDIR		?= /usr/src/lake-$(LAKE_VERSION)
# LinnOS's weight files, where request_firmware() looks, whatever PREFIX is.
FIRMWAREDIR	?= /lib/firmware

INSTALL		?= install

# The paths compiled into what is installed: a change rebuilds it.
$(BUILD)/install/paths: FORCE
	@mkdir -p $(@D)
	@echo '$(SBINDIR) $(LAKELIBDIR) $(SYSCONFDIR)' | cmp -s - $@ || \
		echo '$(SBINDIR) $(LAKELIBDIR) $(SYSCONFDIR)' > $@

# laked with this installation's paths compiled in.
INSTALL_LAKED	:= $(BUILD)/install/laked
$(INSTALL_LAKED): $(LAKED_SRCS) $(wildcard laked/*.h laked/host/*.h include/lake/*.h include/uapi/lake/*.h) \
		$(BUILD)/install/paths
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(NL_CFLAGS) \
		-DLAKED_MODULE_DIR='"$(LAKELIBDIR)/kernels"' \
		-DLAKED_CONFIG='"$(SYSCONFDIR)/lake/laked.conf"' \
		$(LAKED_SRCS) -o $@ $(NL_LIBS) -lseccomp -ldl -lpthread $(LAKED_HOST_LIBS)

INSTALL_LAKECTL	:= $(BUILD)/install/lakectl
$(INSTALL_LAKECTL): $(LAKECTL_SRCS) lakectl/ipc.h include/uapi/lake/genl.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -O2 $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(NL_CFLAGS) \
		$(LAKECTL_SRCS) -o $@ $(NL_LIBS)

INSTALL_PROGS	:= $(INSTALL_LAKED) $(INSTALL_LAKECTL)

$(BUILD)/install/laked.service: dist/laked.service.in $(BUILD)/install/paths
	@mkdir -p $(@D)
	sed 's|@SBINDIR@|$(SBINDIR)|g' $< > $@

$(BUILD)/install/dkms.conf: dist/dkms.conf.in VERSION
	@mkdir -p $(@D)
	sed 's|@VERSION@|$(LAKE_VERSION)|g' $< > $@

# The module sources DKMS builds: lakeshm, lakelib and the common/ sources
# lakelib links, and the headers, LAKE's kernel API's (include/kapi) with them.
DKMS_SRCS := $(filter-out lakeshm/alloc_check.c,$(wildcard lakeshm/*.[ch])) lakeshm/Kbuild \
	$(wildcard lakelib/*.[ch]) lakelib/Kbuild $(wildcard common/*.[ch]) common/Kbuild \
	$(wildcard include/lake/*.h) $(wildcard include/uapi/lake/*.h) \
	$(wildcard include/kapi/*.h include/kapi/host/*.h) include/kapi/symbols

.PHONY: install install-build install-programs install-dkms-src
install: install-programs install-dkms-src

# Everything install copies that is built (debian/rules builds this first).
install-build: $(INSTALL_PROGS) $(BUILD)/install/laked.service $(BUILD)/install/dkms.conf

install-programs: $(INSTALL_PROGS) $(BUILD)/install/laked.service
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(INCLUDEDIR)/lake $(DESTDIR)$(INCLUDEDIR)/uapi/lake \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(LAKELIBDIR)/kernels $(DESTDIR)$(SYSCONFDIR)/lake \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(MODULESLOADDIR) $(DESTDIR)$(MODPROBEDIR) \
		$(DESTDIR)$(SYSUSERSDIR)
	$(INSTALL) -m 0755 $(INSTALL_PROGS) $(DESTDIR)$(SBINDIR)/
	$(INSTALL) -m 0644 include/lake/*.h $(DESTDIR)$(INCLUDEDIR)/lake/
	$(INSTALL) -m 0644 include/uapi/lake/*.h $(DESTDIR)$(INCLUDEDIR)/uapi/lake/
	$(INSTALL) -m 0644 man/*.7 $(DESTDIR)$(MANDIR)/man7/
	$(INSTALL) -m 0644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 0644 dist/laked.conf $(DESTDIR)$(SYSCONFDIR)/lake/laked.conf
	$(INSTALL) -m 0644 $(BUILD)/install/laked.service $(DESTDIR)$(UNITDIR)/laked.service
	$(INSTALL) -m 0644 dist/modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/lake.conf
	$(INSTALL) -m 0644 dist/modprobe.conf $(DESTDIR)$(MODPROBEDIR)/lake.conf
	$(INSTALL) -m 0644 dist/sysusers.conf $(DESTDIR)$(SYSUSERSDIR)/laked.conf

install-dkms-src: $(BUILD)/install/dkms.conf
	$(INSTALL) -d $(DESTDIR)$(DKMSDIR)
	tar -c $(DKMS_SRCS) | tar -x -C $(DESTDIR)$(DKMSDIR) --no-same-owner
	$(INSTALL) -m 0644 dist/Kbuild $(BUILD)/install/dkms.conf $(DESTDIR)$(DKMSDIR)/
	$(INSTALL) -m 0755 dist/dkms-post-build $(DESTDIR)$(DKMSDIR)/
	$(INSTALL) -d $(DESTDIR)$(FIRMWAREDIR)/linnos
	$(INSTALL) -m 0644 examples/linnos/weights/*.lnw $(DESTDIR)$(FIRMWAREDIR)/linnos/

.PHONY: test-pkg
test-pkg: deps
	@$(RUN_ENV) tests/run pkg
