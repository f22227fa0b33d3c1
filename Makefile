# dbtop - build, test and install. `make` builds ./dbtop; `make check` runs
# every test against throwaway servers; `make demo` shows it on a live load.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
DATADIR ?= $(PREFIX)/share/dbtop
LIBDIR ?= $(PREFIX)/lib/dbtop

CC ?= cc
PKG_CONFIG ?= pkg-config
MYSQL_CONFIG ?= $(shell command -v mariadb_config 2>/dev/null || command -v mysql_config 2>/dev/null)

PKGS := ncursesw libpq libpcre2-8 libmicrohttpd
DEP_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
	$(shell $(MYSQL_CONFIG) --include 2>/dev/null)
# the binary links neither client library: each backend is a plugin that
# links its own, loaded only for the engine in use (smaller footprint);
# libmicrohttpd, the --listen endpoint's HTTP server (app/http.c), is a
# plugin too, loaded only with --listen (it maps GnuTLS and its kin)
BASE_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw libpcre2-8 2>/dev/null) -lpthread -ldl
MHD_LIBS := $(shell $(PKG_CONFIG) --libs libmicrohttpd 2>/dev/null)
PQ_LIBS := $(shell $(PKG_CONFIG) --libs libpq 2>/dev/null)
MY_LIBS := $(shell $(MYSQL_CONFIG) --libs 2>/dev/null)
DEP_LIBS := $(BASE_LIBS) $(PQ_LIBS) $(MY_LIBS) $(MHD_LIBS)

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
ifneq ($(CI),)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
CFLAGS_EXTRA ?=
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DDBTOP_DATADIR='"$(DATADIR)"' -DDBTOP_LIBDIR='"$(LIBDIR)"' \
	$(WARN) $(CFLAGS) $(CFLAGS_EXTRA) $(DEP_CFLAGS)
LDLIBS := $(BASE_LIBS)

BUILD ?= build
BIN ?= dbtop
CORE_SRC := util/util.c util/redact.c core/tunables.c core/durability.c core/fixes.c core/sample.c \
	model/ring.c model/model.c model/digests.c model/locks.c model/sessions.c model/waits.c model/replication.c model/findings.c model/events.c model/release.c model/logdev_rates.c model/host_rates.c model/forecast.c model/scope.c \
	config/dsn.c config/targets.c config/userconf.c \
	sources/source.c sources/hostio.c sources/host_read.c sources/pace.c sources/sessions_pace.c sources/registry.c sources/mysql_map.c sources/mysql_locks_map.c sources/mariadb_rowlocks.c sources/pg_map.c sources/pg_locks_map.c sources/repl_map.c sources/sessions_map.c sources/fallback.c \
	record/record.c record/replay.c record/history.c record/triggers.c record/incidents.c record/incidents_sum.c \
	tune/journal.c tune/tuner.c \
	$(sort $(wildcard panes/*.c)) \
	tui/theme_parse.c app/batch.c app/metrics.c
DB_SRC :=
PLUGINS := $(dir $(BIN))dbtop-pg.so $(dir $(BIN))dbtop-mysql.so $(dir $(BIN))dbtop-http.so
MAIN_SRC := app/main.c app/listen.c app/tour.c app/service.c app/version.c tui/incident_list.c tui/ui.c tui/keyact.c tui/term.c tui/curses_canvas.c tui/help.c tui/keybar.c tui/keys.c run/sampler.c run/target.c run/tunectl.c run/travel.c run/sessact.c run/tourseq.c run/watch.c tui/theme_curses.c
# the incident recordings bundled into the binary for --demo (app/tour.c)
DEMO_REC ?= recordings/mariadb-commit-fsync.dbrec recordings/mariadb-upsert-gap-lock.dbrec \
	recordings/mariadb-slap-flush.dbrec recordings/pg-lock-chain.dbrec recordings/pg-wal-writer.dbrec
UNIT_SRC := $(wildcard tests/unit/test_*.c)

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
DB_OBJ := $(DB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check check-asan asan-build unit live asan soak demo install install-service uninstall clean fuzz lint format format-check dist
all: $(BIN)

$(BIN): $(CORE_OBJ) $(DB_OBJ) $(MAIN_OBJ) $(BUILD)/demo_rec.o $(BUILD)/version.o | $(PLUGINS)
	$(CC) $(ALL_CFLAGS) -rdynamic -o $@ $^ $(LDFLAGS) $(LDLIBS)

# the version (VERSION) and the commit built (git; COMMIT in a `make dist`
# tarball; else "unknown"): rewritten only when they change
$(BUILD)/version.c: FORCE
	@mkdir -p $(dir $@)
	@scripts/version.sh --c > $@.tmp && { cmp -s $@.tmp $@ || mv $@.tmp $@; }; rm -f $@.tmp
.PHONY: FORCE
FORCE:

# the commit the binary and its plugins are stamped with (sources/abi.h;
# registry.c refuses a plugin with another stamp): rewritten when it changes
$(BUILD)/abi_stamp.h: FORCE
	@mkdir -p $(dir $@)
	@echo "#define DBTOP_ABI_STAMP \"$$(scripts/version.sh | cut -d' ' -f2)\"" > $@.tmp && \
		{ cmp -s $@.tmp $@ || mv $@.tmp $@; }; rm -f $@.tmp
$(BUILD)/sources/registry.o: $(BUILD)/abi_stamp.h
$(BUILD)/sources/registry.o: ALL_CFLAGS += -include $(BUILD)/abi_stamp.h

# backends: shared objects next to the binary (installed in LIBDIR)
$(dir $(BIN))dbtop-pg.so: sources/pg.c $(wildcard */*.h) $(BUILD)/abi_stamp.h
	$(CC) $(ALL_CFLAGS) -include $(BUILD)/abi_stamp.h -fPIC -shared -o $@ $< $(LDFLAGS) $(PQ_LIBS)
$(dir $(BIN))dbtop-mysql.so: sources/mysql.c $(wildcard */*.h) $(BUILD)/abi_stamp.h
	$(CC) $(ALL_CFLAGS) -include $(BUILD)/abi_stamp.h -fPIC -shared -o $@ $< $(LDFLAGS) $(MY_LIBS)
$(dir $(BIN))dbtop-http.so: app/http.c $(wildcard */*.h) $(BUILD)/abi_stamp.h
	$(CC) $(ALL_CFLAGS) -include $(BUILD)/abi_stamp.h -fPIC -shared -o $@ $< $(LDFLAGS) $(MHD_LIBS)

$(BUILD)/demo_rec.c: $(DEMO_REC) scripts/embed.sh
	@mkdir -p $(dir $@)
	{ scripts/embed.sh dbtop_demo_fsync recordings/mariadb-commit-fsync.dbrec && \
	  scripts/embed.sh dbtop_demo_upsert recordings/mariadb-upsert-gap-lock.dbrec && \
	  scripts/embed.sh dbtop_demo_slap recordings/mariadb-slap-flush.dbrec && \
	  scripts/embed.sh dbtop_demo_chain recordings/pg-lock-chain.dbrec && \
	  scripts/embed.sh dbtop_demo_wal recordings/pg-wal-writer.dbrec; } > $@

$(BUILD)/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/demo_rec.o: $(BUILD)/demo_rec.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/version.o: $(BUILD)/version.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# unit tests link the pure core only: no server, no curses
$(BUILD)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS) -lm

# test_keys includes the key table's source (its key codes are curses.h
# constants; nothing of curses is linked)
$(BUILD)/tests/test_keys: tui/keys.c tui/keys.h
# test_travel, test_sessact and test_tourseq include their run/ unit's source
# (the sampler is each test's stand-in); test_sampler includes the sampler's
$(BUILD)/tests/test_travel: run/travel.c run/travel.h
$(BUILD)/tests/test_sessact: run/sessact.c run/sessact.h
$(BUILD)/tests/test_sampler: run/sampler.c run/sampler.h
$(BUILD)/tests/test_tourseq: run/tourseq.c run/tourseq.h run/travel.c run/target.c

# the fuzz targets' corpora replayed without libFuzzer (any compiler, the
# sanitizer build too): tests/fuzz/replay.c is their main()
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz_%)
$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< tests/fuzz/replay.c $(CORE_OBJ) $(LDFLAGS) $(LDLIBS) $(PQ_LIBS) -lm

# test tools (link the pure core): recordings with chosen contents
TOOL_SRC := $(filter-out tests/tools/slowsync.c,$(wildcard tests/tools/*.c))
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%) $(BUILD)/tests/slowsync.so
$(BUILD)/tests/%: tests/tools/%.c $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CORE_OBJ) $(LDFLAGS) $(LDLIBS) -lm
# the slow-disk shim a live test preloads into a sandbox server
$(BUILD)/tests/slowsync.so: tests/tools/slowsync.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

deps:
	@scripts/deps.sh

unit: $(BIN) $(UNIT_BIN) $(FUZZ_REPLAY_BIN)
	@tests/run.sh unit $(UNIT_BIN) $(FUZZ_REPLAY_BIN)

# every test: installs what is missing, starts the sandbox servers, runs
# the layer check, unit tests, fuzz corpora, screen tests and every live
# test, stops the servers, prints "N skipped" and "N passed, N failed"
check:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory -j$$(nproc 2>/dev/null || echo 2) $(BIN) $(UNIT_BIN) $(FUZZ_REPLAY_BIN) $(TOOL_BIN)
	@tests/run.sh all $(UNIT_BIN) $(FUZZ_REPLAY_BIN)

# under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs it after
# `make check`): the unit tests, the fuzz corpora, the screen tests and the
# live tests of ASAN_LIVE. A live test's time is the servers' and the
# waits', the same with or without the sanitizers, so the list takes those
# that reach the most C per second: both collectors (20, 30), reconnects
# and stalls (40, 45), lock chains (65), the session list and kill by
# identity (57, 67), tuning and its journal (78, 79_pending), hostile text
# (88), signals and the crash handler (89), the fleet (94), the metrics
# endpoint under Prometheus and hostile requests (95), and the short
# command line, batch and screen tests (10, 12, 60): 573 s of the 3037 s
# `make check` took. Left out: 50, 55, 56, 70, 75, 76, 77, 79_tune_trust,
# 80, 90, long loads through the same collectors; their recording, digest,
# findings and redaction code runs under the sanitizers in the unit, fuzz
# and screen tests; 85 (faults: restarts, freezes and revoked grants, the
# paths of 40 and 45 with longer waits); 58 and 66 (the session list's and
# the lock tree's keys: the screen tests 50 and 70 draw the same panes
# from fixtures, 57 and 67 run the same kill path); 82 (TLS: the client
# library's code). ASAN_LIVE=all runs every one.
# `make asan` is the same.
ASAN_LIVE ?= 10_cli 12_batch_text 20_mariadb 30_postgres 40_restart 45_stall 57_sessions 60_tui 65_locks \
	67_kill_identity 78_tune 79_pending 88_hostile 89_safety 94_fleet 95_metrics
# the screen tests under the sanitizers: every pane, size, terminal and
# hostile text (10-70); left out, the tour, time travel and the first look
# (80, 85, 90: the same drawing code, replayed longer). ASAN_SCREEN=all: all
ASAN_SCREEN ?= 10_screens 20_terminal 30_hostile 40_digests 50_locks 60_layout 70_sessions
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_TESTS := $(UNIT_SRC:tests/unit/%.c=build-asan/tests/%) $(FUZZ_NAMES:%=build-asan/tests/fuzz_%)
asan: check-asan
# the sanitizer build alone (CI makes it beside make check, at low priority)
asan-build:
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="$(ASAN_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" BIN=build-asan/dbtop build-asan/dbtop $(ASAN_TESTS)
check-asan:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory asan-build
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 DBTOP=build-asan/dbtop DBTOP_STATIC=0 \
		DBTOP_LIVE="$(ASAN_LIVE)" DBTOP_SCREEN="$(ASAN_SCREEN)" tests/run.sh all $(ASAN_TESTS)

# under ThreadSanitizer (not part of make check): the unit tests and what
# runs two threads over one source: time travel's seek and step into a
# running replay (screen test 80_travel), the fleet's samplers (live test
# 94_fleet), tuning through the sampler thread (78_tune) and kills and
# cancels through its command queue (58_sessions_tui). Every report
# goes to build-tsan/reports/; scripts/tsan_summary.sh prints each race
# once (its two stacks' top frames) and fails when there is any. The unit
# tests link no thread (the core starts none): they run as a check of the
# build, without test_record (443 s under TSan, 5 s without) and
# test_redact (its 10 s bound on a 1 MiB statement is for a plain build);
# TSAN_UNIT=all runs every one.
TSAN_LIVE ?= 78_tune 94_fleet 58_sessions_tui
TSAN_SCREEN ?= 80_travel
TSAN_UNIT ?= $(filter-out test_record test_redact,$(UNIT_SRC:tests/unit/%.c=%))
TSAN_CFLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
TSAN_TESTS := $(if $(filter all,$(TSAN_UNIT)),$(UNIT_SRC:tests/unit/%.c=build-tsan/tests/%),$(TSAN_UNIT:%=build-tsan/tests/%))
.PHONY: tsan-build check-tsan
tsan-build:
	@$(MAKE) --no-print-directory BUILD=build-tsan CFLAGS="$(TSAN_CFLAGS)" \
		LDFLAGS="-fsanitize=thread" BIN=build-tsan/dbtop build-tsan/dbtop $(TSAN_TESTS)
check-tsan:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory tsan-build
	@rm -rf build-tsan/reports && mkdir -p build-tsan/reports
	@rc=0; TSAN_OPTIONS="log_path=$(CURDIR)/build-tsan/reports/tsan second_deadlock_stack=1 history_size=4" \
		DBTOP=build-tsan/dbtop DBTOP_STATIC=0 DBTOP_LIVE="$(TSAN_LIVE)" DBTOP_SCREEN="$(TSAN_SCREEN)" \
		tests/run.sh all $(TSAN_TESTS) || rc=$$?; \
		scripts/tsan_summary.sh build-tsan/reports || rc=1; exit $$rc

# static analysis of the product code (not the tests): cppcheck, the clang
# static analyzer (scan-build) and clang-tidy (.clang-tidy); any finding
# fails. A false positive is suppressed where it is, with its reason
# (scripts/lint.sh says how; docs/development.md)
lint:
	@scripts/deps.sh
	@LINT_CFLAGS='-std=c11 -D_GNU_SOURCE $(DEP_CFLAGS)' scripts/lint.sh

# clang-format 14 (.clang-format) on the lines changed since the format rule
# came in: `make format` formats them, `make format-check` (CI) fails on any
format:
	@scripts/format.sh fix
format-check:
	@scripts/deps.sh
	@scripts/format.sh check

# a source tarball (git archive) whose build names its commit (COMMIT)
DIST_NAME := dbtop-$(shell sed -n 1p VERSION 2>/dev/null)
dist:
	git archive --prefix=$(DIST_NAME)/ -o $(DIST_NAME).tar.gz HEAD
	@echo "$(DIST_NAME).tar.gz"

# libFuzzer targets (clang), one per parser: tests/fuzz/fuzz_NAME.c, seeds in
# tests/fuzz/corpus/NAME/ (docs/fuzzing.md says what each one checks).
#   make fuzz FUZZ_TARGET=record FUZZ_SECONDS=600   one target
#   make fuzz-all FUZZ_SECONDS=60                   every target in turn
# New inputs go to build-fuzz/corpus-NAME, crash reproducers to build-fuzz/.
FUZZ_TARGET ?= record
FUZZ_SECONDS ?= 600
FUZZ_CC ?= clang
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined $(DEP_CFLAGS)
FUZZ_RUN_FLAGS := -max_len=65536 -rss_limit_mb=512 -timeout=30 -print_final_stats=1 \
	-artifact_prefix=build-fuzz/
# a smaller ASan quarantine keeps long runs under the RSS limit
FUZZ_ENV := ASAN_OPTIONS=quarantine_size_mb=64
# the target fuzzer asks libpq how it reads a connection string
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(CORE_SRC) $(wildcard */*.h)
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(CORE_SRC) $(BASE_LIBS) $(PQ_LIBS)

fuzz: build-fuzz/fuzz_$(FUZZ_TARGET)
	@mkdir -p build-fuzz/corpus-$(FUZZ_TARGET)
	$(FUZZ_ENV) build-fuzz/fuzz_$(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUN_FLAGS) \
		build-fuzz/corpus-$(FUZZ_TARGET) tests/fuzz/corpus/$(FUZZ_TARGET)

# every target for FUZZ_SECONDS each, one after the other; one line each:
# "fuzz NAME: S s, N executions, ok" (or FAILED and the log to read)
.PHONY: fuzz-all
fuzz-all: $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
	@fail=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p build-fuzz/corpus-$$t; \
		log=build-fuzz/fuzz-$$t.log; \
		$(FUZZ_ENV) build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUN_FLAGS) \
			build-fuzz/corpus-$$t tests/fuzz/corpus/$$t > $$log 2>&1; rc=$$?; \
		execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$log | tail -n 1); \
		if [ $$rc -eq 0 ]; then res=ok; else res="FAILED (exit $$rc, see $$log)"; fail=1; fi; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s, $${execs:-?} executions, $$res"; \
	done; exit $$fail

# 30 minutes of the screen under load at 0.25 s: RSS and fds sampled, then
# a valgrind batch run (SOAK_SECONDS=N for a shorter run; DBTOP=build-asan/dbtop under ASan)
soak: $(BIN)
	@scripts/deps.sh
	@scripts/soak.sh

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory dbtop
	@scripts/demo.sh

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(DATADIR)/themes $(DESTDIR)$(LIBDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/dbtop
	install -m 0644 $(PLUGINS) $(DESTDIR)$(LIBDIR)/
	install -m 0644 docs/dbtop.1 $(DESTDIR)$(MANDIR)/dbtop.1
	install -m 0644 themes/*.theme $(DESTDIR)$(DATADIR)/themes/

# the incident capture as a service (docs/incidents.md): the unit, with
# ExecStart at $(BINDIR), and an example /etc/dbtop/dbtop.env (kept if there)
UNITDIR ?= /etc/systemd/system
install-service: install
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)/etc/dbtop
	sed 's|/usr/local/bin/dbtop|$(BINDIR)/dbtop|' contrib/dbtop.service >$(DESTDIR)$(UNITDIR)/dbtop.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/dbtop.service
	chmod 0700 $(DESTDIR)/etc/dbtop
	[ -e $(DESTDIR)/etc/dbtop/dbtop.env ] || install -m 0600 contrib/dbtop.env $(DESTDIR)/etc/dbtop/dbtop.env

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dbtop $(DESTDIR)$(MANDIR)/dbtop.1
	rm -rf $(DESTDIR)$(LIBDIR)
	rm -rf $(DESTDIR)$(DATADIR)

# a Debian package of what install installs (PREFIX=/usr, built in
# build-deb/ with dpkg-buildflags; contrib/ files included): scripts/mkdeb.sh
.PHONY: deb
deb:
	@scripts/mkdeb.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz build-lint build-deb dbtop dbtop-pg.so dbtop-mysql.so dbtop-http.so dbtop_*.deb
