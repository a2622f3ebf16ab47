#include "commands.h"
#include "image.h"
#include "keyring.h"

int session_open(const struct options *o, struct img *im, struct keyring *kr)
{
	keyring_init(kr, im);
	if (img_open(im, o->args[0]))
		return EXIT_FATAL;
	im->format = (enum name_format)o->format;
	kr->dummy_key = o->dummy_key;
	for (size_t i = 0; i < o->n_key_files; i++) {
		if (keyring_add_file(kr, o->key_files[i])) {
			session_close(im, kr);
			return EXIT_FATAL;
		}
	}
	return 0;
}

void session_close(struct img *im, struct keyring *kr)
{
	keyring_free(kr);
	img_close(im);
}
