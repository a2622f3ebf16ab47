#include <string.h>
#include "commands.h"
#include "keyfile.h"
#include "report.h"
#include "image.h"
#include "keyring.h"

int session_open(const struct options *o, struct img *im, struct keyring *kr)
{
	keyring_init(kr, im);
	if (img_open(im, o->args[0]))
		return EXIT_FATAL;
	im->format = (enum name_format)o->format;
	kr->dummy_key = o->dummy_key;
	if (o->n_pass_files) {
		uint8_t salt[256];
		size_t salt_len = 0;
		const char *why = NULL;

		if (o->salt_hex) {
			if (e4_keyfile_parse((const uint8_t *)o->salt_hex,
					     strlen(o->salt_hex), salt, &salt_len, &why)) {
				/* keyfile_parse wants >= 16 bytes; that suits a salt */
				report_error("--salt: %s", why ? why : "not hex");
				session_close(im, kr);
				return EXIT_FATAL;
			}
		} else {
			memcpy(salt, im->fs->super->s_encrypt_pw_salt, 16);
			salt_len = 16;
			if (!memcmp(salt, (uint8_t[16]){ 0 }, 16)) {
				report_error("%s: s_encrypt_pw_salt is zero: give --salt HEX",
					     im->path);
				session_close(im, kr);
				return EXIT_FATAL;
			}
		}
		for (size_t i = 0; i < o->n_pass_files; i++) {
			if (keyring_add_passphrase(kr, o->pass_files[i], salt, salt_len)) {
				session_close(im, kr);
				return EXIT_FATAL;
			}
		}
	}
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
