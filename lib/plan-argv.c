/* plan-argv.c - the plan as bubblewrap reads it: the typed mounts put in
 * argv order (base, pins beneath everything, /dev /proc /tmp, the region
 * mounts by depth, the remounts that make directory masks read-only), the
 * public view of mounts, skips and seams, and files lent into the private
 * /tmp afterwards.  No decision is taken here. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envelope.h"
#include "envelope-plan.h"

static int push(struct pg_plan *pl, const char *s)
{
	char *d;

	if (!PLAN_GROW(pl->args, pl->nargs, pl->capargs) || !(d = strdup(s))) {
		pl->oom = true;
		return -1;
	}
	pl->args[pl->nargs++] = d;
	return 0;
}

static void push_fd(struct pg_plan *pl, int fd)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	push(pl, num);
}

static void emit_mount(struct pg_plan *pl, struct plan_mount *m)
{
	switch (m->kind) {
	case MK_BASE:
		push(pl, m->op = pl->base == REGION_RW ? "--bind" : "--ro-bind");
		push(pl, "/");
		break;
	case MK_PSEUDO:
		push(pl, m->op);
		break;
	case MK_PIN:
	case MK_ROBIND:
		push(pl, m->op = "--ro-bind-fd");
		push_fd(pl, m->fd);
		break;
	case MK_PIN_RW:
	case MK_BIND:
		push(pl, m->op = "--bind-fd");
		push_fd(pl, m->fd);
		break;
	case MK_MASK_DIR:
		push(pl, "--perms");
		push(pl, m->traverse ? "0111" : "0000");
		push(pl, m->op = "--tmpfs");
		break;
	case MK_MASK_FILE:
		push(pl, m->op = "--ro-bind");
		push(pl, "/dev/null");
		break;
	case MK_SYMLINK:
		push(pl, m->op = "--symlink");
		push(pl, m->src);
		break;
	case MK_REMOUNT:
		push(pl, m->op = "--remount-ro");
		break;
	}
	push(pl, m->dest);
	m->emitted = true;
}

static void add_pseudo(struct pg_plan *pl, const char *op, const char *dest)
{
	struct plan_mount *m = pg_plan_add_mount(pl, MK_PSEUDO, strdup(dest), NULL, -1, "");

	if (m) {
		m->op = op;
		m->why = "base";
	}
}

/* The argv order: base, read-only pins (beneath everything), /dev /proc
 * /tmp, rule mounts by depth (each followed by its writable pins), then
 * the remounts that make directory masks read-only. */
enum phase { PHASE_BASE, PHASE_PINS, PHASE_PSEUDO, PHASE_RULES, PHASE_REMOUNTS, PHASE_FOLLOWS };

static enum phase phase_of(enum mount_kind k)
{
	switch (k) {
	case MK_BASE:    return PHASE_BASE;
	case MK_PIN:     return PHASE_PINS;
	case MK_PSEUDO:  return PHASE_PSEUDO;
	case MK_REMOUNT: return PHASE_REMOUNTS;
	case MK_PIN_RW:  return PHASE_FOLLOWS;
	default:         return PHASE_RULES;
	}
}

static void emit_at(struct pg_plan *pl, size_t i)
{
	pl->order[pl->norder++] = i;
	emit_mount(pl, &pl->mounts[i]);
	for (size_t j = 0; pl->npins_rw && j < pl->nmounts; j++)
		if (pl->mounts[j].kind == MK_PIN_RW && pl->mounts[j].after == i)
			emit_at(pl, j);
}

static void emit_phase(struct pg_plan *pl, enum phase ph)
{
	for (size_t i = 0; i < pl->nmounts; i++)
		if (!pl->mounts[i].emitted && phase_of(pl->mounts[i].kind) == ph)
			emit_at(pl, i);
}

/* A directory mask with a grant beneath it keeps traverse (0111), so the
 * grant's mountpoint stays reachable. */
static void mark_traverse(struct pg_plan *pl)
{
	for (size_t j = 0; j < pl->nmounts; j++) {
		const char *d = pl->mounts[j].dest;
		char *up;

		switch (pl->mounts[j].kind) {
		case MK_BASE: case MK_PIN: case MK_PSEUDO: case MK_REMOUNT:
			continue;
		default:
			break;
		}
		up = pg_parent_of(d);
		while (up && strcmp(up, d) != 0) {
			size_t i = pg_plan_nearest_mount(pl, up);
			char *next;

			if (i == (size_t)-1)
				break;
			if (pl->mounts[i].kind == MK_MASK_DIR)
				pl->mounts[i].traverse = true;
			if (strcmp(up, "/") == 0)
				break;
			next = pg_parent_of(pl->mounts[i].dest);
			free(up);
			up = next;
		}
		free(up);
	}
}

static void add_remounts(struct pg_plan *pl)
{
	size_t nrule = pl->nmounts;

	for (size_t i = 0; i < nrule && !pl->masks_read_only; i++)
		if (pl->mounts[i].kind == MK_MASK_DIR)
			pg_plan_note(pl, true, pl->mounts[i].dest, pl->mounts[i].rule,
				     "this bwrap refuses --remount-ro over its own tmpfs: the child can chmod the empty mask back and use it as private scratch (never the denied directory)");
	for (size_t i = 0; i < nrule && pl->masks_read_only; i++)
		if (pl->mounts[i].kind == MK_MASK_DIR) {
			struct plan_mount *m = pg_plan_add_mount(pl, MK_REMOUNT,
								 strdup(pl->mounts[i].dest),
								 NULL, -1, pl->mounts[i].rule);
			if (m)
				m->why = "mask (read-only: its mode cannot be changed back)";
		}
}

void pg_plan_assemble(struct pg_plan *pl)
{
	static const char *const head[] = {
		"--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
		"--die-with-parent", "--new-session",
	};

	mark_traverse(pl);
	add_pseudo(pl, "--dev", "/dev");
	add_pseudo(pl, "--proc", "/proc");
	add_pseudo(pl, "--tmpfs", "/tmp");
	add_remounts(pl);
	if (pl->oom)
		return;
	push(pl, pl->bwrap);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		push(pl, head[i]);
	pl->order = calloc(pl->nmounts + 1, sizeof(*pl->order));
	if (!pl->order) {
		pl->oom = true;
		return;
	}
	for (int ph = PHASE_BASE; ph <= PHASE_REMOUNTS; ph++)
		emit_phase(pl, (enum phase)ph);
	push(pl, "--chdir");
	push(pl, pl->chdir);
}

void pg_plan_publish(struct pg_plan *pl)
{
	pl->pub_mounts = calloc(pl->norder + 1, sizeof(*pl->pub_mounts));
	pl->pub_skips = calloc(pl->nskips + 1, sizeof(*pl->pub_skips));
	pl->pub_seams = calloc(pl->nseams + 1, sizeof(*pl->pub_seams));
	if (!pl->pub_mounts || !pl->pub_skips || !pl->pub_seams) {
		pl->oom = true;
		return;
	}
	for (size_t k = 0; k < pl->norder; k++) {
		const struct plan_mount *m = &pl->mounts[pl->order[k]];

		pl->pub_mounts[k] = (struct pg_mount){ m->op, m->src, m->dest, m->rule,
						       m->why ? m->why : "" };
	}
	for (size_t i = 0; i < pl->nskips; i++)
		pl->pub_skips[i] = (struct pg_seam){ pl->skips[i].path, pl->skips[i].rule, pl->skips[i].why };
	for (size_t i = 0; i < pl->nseams; i++)
		pl->pub_seams[i] = (struct pg_seam){ pl->seams[i].path, pl->seams[i].rule, pl->seams[i].why };
	/* argv ends with NULL */
	if (PLAN_GROW(pl->args, pl->nargs, pl->capargs))
		pl->args[pl->nargs] = NULL;
	else
		pl->oom = true;
}

/* Lend the host file HOST read-only to the child at DEST, which must lie in
 * the envelope's private /tmp: its mountpoint is made in that tmpfs, never
 * on the host.  The file is opened here and lent by descriptor, so what is
 * mounted is what was opened. */
int pg_envelope_lend(pg_plan *pl, const char *host, const char *dest, const char *why)
{
	struct plan_mount *m;
	struct stat st;
	size_t *order;
	int fd;

	if (!pl || !host || !dest || strncmp(dest, "/tmp/", 5) != 0 || strstr(dest, "/..")) {
		errno = EINVAL;
		return -1;
	}
	fd = open(host, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	order = realloc(pl->order, (pl->nmounts + 2) * sizeof(*order));
	if (!order) {
		close(fd);
		return -1;
	}
	pl->order = order;
	m = pg_plan_add_mount(pl, MK_ROBIND, strdup(dest), strdup(host), fd, why);
	if (!m || pl->oom)
		return -1;
	m->why = "lent";
	/* Append the mount over the argv terminator, publish again. */
	emit_at(pl, pl->nmounts - 1);
	free(pl->pub_mounts);
	free(pl->pub_skips);
	free(pl->pub_seams);
	pg_plan_publish(pl);
	if (pl->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------ public getters */

char *const *pg_plan_argv(const pg_plan *pl)
{
	return pl ? pl->args : NULL;
}

size_t pg_plan_mount_count(const pg_plan *pl)
{
	return pl ? pl->norder : 0;
}

const struct pg_mount *pg_plan_mount(const pg_plan *pl, size_t i)
{
	return pl && i < pl->norder ? &pl->pub_mounts[i] : NULL;
}

size_t pg_plan_seam_count(const pg_plan *pl)
{
	return pl ? pl->nseams : 0;
}

const struct pg_seam *pg_plan_seam(const pg_plan *pl, size_t i)
{
	return pl && i < pl->nseams ? &pl->pub_seams[i] : NULL;
}

size_t pg_plan_skip_count(const pg_plan *pl)
{
	return pl ? pl->nskips : 0;
}

const struct pg_seam *pg_plan_skip(const pg_plan *pl, size_t i)
{
	return pl && i < pl->nskips ? &pl->pub_skips[i] : NULL;
}
