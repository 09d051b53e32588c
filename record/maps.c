// SPDX-License-Identifier: GPL-3.0-or-later
/* Parsing /proc/PID/maps (see proc(5)). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "maps.h"

void maps_free(struct maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int parse_line(char *line, struct map *mp)
{
	char perms[8];
	int path_at = 0;
	size_t len;

	/* start-end perms offset dev inode path */
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %" SCNx32
		   ":%" SCNx32 " %" SCNu64 " %n", &mp->start, &mp->end, perms,
		   &mp->pgoff, &mp->dev_major, &mp->dev_minor, &mp->ino,
		   &path_at) < 7 || !path_at)
		return -EBADMSG;
	mp->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		   (perms[1] == 'w' ? PROT_WRITE : 0) |
		   (perms[2] == 'x' ? PROT_EXEC : 0);
	mp->mflags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	len = strlen(line + path_at);
	while (len && (line[path_at + len - 1] == '\n'))
		line[path_at + --len] = '\0';
	mp->path = strdup(line + path_at);
	return mp->path ? 0 : -ENOMEM;
}

int maps_read(pid_t pid, struct maps *out)
{
	char name[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	struct maps m = { 0 };
	int ret = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (m.n == alloc) {
			struct map *v;

			alloc = alloc ? 2 * alloc : 64;
			v = realloc(m.v, alloc * sizeof(*v));
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			m.v = v;
		}
		ret = parse_line(line, &m.v[m.n]);
		if (ret)
			break;
		m.n++;
	}
	free(line);
	fclose(f);
	if (ret) {
		maps_free(&m);
		return ret;
	}
	*out = m;
	return 0;
}

bool map_equal(const struct map *a, const struct map *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->prot == b->prot &&
	       a->mflags == b->mflags && !strcmp(a->path, b->path);
}

bool map_is_file(const struct map *m)
{
	return m->path[0] == '/' && !strstr(m->path, " (deleted)");
}
