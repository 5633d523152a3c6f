/* discover.c - where a workspace's policy comes from, decided once for
 * the pathgate command and the preload (declared in shim.h): a named
 * file, the text handed down for it, ROOT/.pathgate, or the embedded
 * default; and where the workspace is when no root is named (the
 * nearest directory upward holding a .pathgate, as git finds .git). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy.h"
#include "shim.h"

const char *pg_policy_default_text(void)
{
	return pg_default_policy_text;
}

/* ROOT/.pathgate when it is a regular file, else NULL (owned by caller). */
static char *root_policy_file(const char *root)
{
	char *file;
	struct stat st;

	if (!root || asprintf(&file, "%s/.pathgate", root) < 0)
		return NULL;
	if (stat(file, &st) == 0 && S_ISREG(st.st_mode))
		return file;
	free(file);
	return NULL;
}

/* FILE's canonical name (rules name their file: make it one a reader can
 * find), or FILE as given when it does not resolve; NULL on no memory. */
static char *canonical(const char *file)
{
	char *canon = realpath(file, NULL);

	return canon ? canon : strdup(file);
}

static int parse_text(pg_policy *p, const char *text)
{
	return pg_policy_parse(p, text, strlen(text));
}

char *pg_policy_find_root(const char *start)
{
	char *dir = start ? realpath(start, NULL) : NULL;
	char *file;

	while (dir) {
		struct stat st;
		char *slash;

		if (asprintf(&file, "%s/.pathgate", strcmp(dir, "/") == 0 ? "" : dir) < 0)
			break;
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			free(file);
			return dir;
		}
		free(file);
		slash = strrchr(dir, '/');
		if (!slash || strcmp(dir, "/") == 0)
			break;
		slash[slash == dir ? 1 : 0] = '\0';
	}
	free(dir);
	return NULL;
}

int pg_policy_discover(pg_policy *p, const char *root, const char *file, const char *text,
		       char **source)
{
	char *found = NULL;
	int rc;

	if (source)
		*source = NULL;
	if (!p) {
		errno = EINVAL;
		return -1;
	}
	if (text && !*text)
		text = NULL;
	if (file && *file)
		found = canonical(file);
	else if (!text)
		found = root_policy_file(root);
	if ((file && *file) && !found)
		return -1;
	if (found) {
		rc = pg_policy_load(p, found);
		/* The file is out of sight (inside the envelope): its text
		 * was handed down with its name.  A failed load adds no rule. */
		if (rc < 0 && text && file && *file)
			rc = parse_text(p, text);
	} else {
		rc = text ? parse_text(p, text)
			  : pg_policy_parse_named(p, pg_default_policy_text, strlen(pg_default_policy_text),
						  "<default>");
	}
	if (source)
		*source = found;
	else
		free(found);
	return rc;
}
