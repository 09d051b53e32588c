// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * dlopen, call, dlclose, then dlopen of another library that the loader
 * places at the same address: replay must decode each call against the
 * library mapped at that moment.
 */
#include <dlfcn.h>
#include <stdio.h>

/* Loads @name, calls dl_value(20) into *@out, unloads it again. */
static void *call(const char *dir, const char *name, int *out)
{
	char path[4096];
	int (*fn)(int);
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return NULL;
	}
	fn = (int (*)(int))dlsym(h, "dl_value");
	*out = fn(20);
	dlclose(h);	/* the last reference: the library is unmapped */
	return (void *)fn;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	void *fa, *fb;
	int a = 0, b = 0;

	fa = call(dir, "libdla.so", &a);
	fb = call(dir, "libdlb.so", &b);
	printf("dl a=%d at %p, b=%d at %p: %s\n", a, fa, b, fb,
	       fa == fb ? "same address" : "different addresses");
	return fa && fb && fa == fb && a == 41 && b == 59 ? 0 : 2;
}
