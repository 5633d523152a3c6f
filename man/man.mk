# man/man.mk: one page per call or family (liburing style: the families'
# other members are .so links), the design document, the licence, and
# installcheck: the pages, the static link and the Python module as installed.
dist_man_MANS += \
	man/pg_check.3 \
	man/pg_check_batch.3 \
	man/pg_chmod.3 \
	man/pg_chown.3 \
	man/pg_clear_temporaries.3 \
	man/pg_last_refusal.3 \
	man/pg_link.3 \
	man/pg_mkdir.3 \
	man/pg_mkdir_all.3 \
	man/pg_op_for_open_flags.3 \
	man/pg_open.3 \
	man/pg_opendir.3 \
	man/pg_plan_argv.3 \
	man/pg_plan_free.3 \
	man/pg_plan_mount.3 \
	man/pg_plan_mount_count.3 \
	man/pg_plan_seam.3 \
	man/pg_plan_seam_count.3 \
	man/pg_plan_skip.3 \
	man/pg_plan_skip_count.3 \
	man/pg_policy_add.3 \
	man/pg_policy_add_final.3 \
	man/pg_policy_free.3 \
	man/pg_policy_load.3 \
	man/pg_policy_new.3 \
	man/pg_policy_parse.3 \
	man/pg_policy_parse_default.3 \
	man/pg_policy_rule_count.3 \
	man/pg_read_file.3 \
	man/pg_read_file_alloc.3 \
	man/pg_readlink.3 \
	man/pg_refusal_name.3 \
	man/pg_remove_all.3 \
	man/pg_rename.3 \
	man/pg_rmdir.3 \
	man/pg_root_close.3 \
	man/pg_root_open.3 \
	man/pg_root_open_at.3 \
	man/pg_root_path.3 \
	man/pg_root_refresh.3 \
	man/pg_root_set_write_limit.3 \
	man/pg_root_uses_openat2.3 \
	man/pg_root_write_limit.3 \
	man/pg_spawn_report.3 \
	man/pg_stat.3 \
	man/pg_symlink.3 \
	man/pg_truncate.3 \
	man/pg_unlink.3 \
	man/pg_utimens.3 \
	man/pg_version.3 \
	man/pg_write_abort.3 \
	man/pg_write_begin.3 \
	man/pg_write_chunk.3 \
	man/pg_write_commit.3 \
	man/pg_write_file.3

dist_doc_DATA = doc/design.md
EXTRA_DIST += COPYING

# The link a distributor's static program makes: pkg-config --static
# flags against libpathgate.a (make check, from the build tree).
dist_check_SCRIPTS += tests/test_pkgconfig_static.sh
TESTS += tests/test_pkgconfig_static.sh
EXTRA_DIST += tests/static_link.c
AM_TESTS_ENVIRONMENT += PG_CC='$(CC)'; PKG_CONFIG='$(PKG_CONFIG)'; export PG_CC PKG_CONFIG;

# After make install (make distcheck runs this): man answers for a
# function, a family's other member and the launcher's report; the
# installed pathgate.pc links a static program; the installed Python
# module imports.
if SANITIZERS
PG_SANITIZERS_ON = 1
endif
installcheck-local:
	@set -e; manpath='$(DESTDIR)$(mandir)'; \
	if command -v man >/dev/null; then \
	  for f in pg_open pg_utimens pg_spawn_report pg_last_refusal pg_remove_all; do \
	    MANWIDTH=80 man -M "$$manpath" $$f 2>/dev/null | grep -q "$$f" || \
	      { echo "installcheck: man -M $$manpath $$f does not answer" >&2; exit 1; }; \
	  done; echo "installcheck: man answers for pg_open, pg_utimens, pg_spawn_report, ..."; \
	else echo "installcheck: no man here: pages not checked"; fi
	@test -f '$(DESTDIR)$(docdir)/design.md'
	@set -e; if test -z '$(DESTDIR)' && test -z '$(PG_SANITIZERS_ON)'; then \
	  tmp=`mktemp -d`; \
	  libs=`PKG_CONFIG_PATH='$(pkgconfigdir)' $(PKG_CONFIG) --static --libs pathgate`; \
	  cflags=`PKG_CONFIG_PATH='$(pkgconfigdir)' $(PKG_CONFIG) --cflags pathgate`; \
	  $(CC) -static -o "$$tmp/static" '$(srcdir)/tests/static_link.c' $$cflags $$libs && \
	  "$$tmp/static" "$$tmp" && echo "installcheck: a static program links with pkg-config --static"; \
	  rc=$$?; rm -rf "$$tmp"; exit $$rc; fi
if PYTHON_BINDING
	@LD_LIBRARY_PATH='$(DESTDIR)$(libdir)' PYTHONPATH='$(DESTDIR)$(pyexecdir)' \
	  $(PYTHON) -c 'import pathgate; assert pathgate.version() == "$(PACKAGE_VERSION)"' && \
	  echo "installcheck: the installed pathgate module imports"
endif
