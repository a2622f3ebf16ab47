#include "modes.h"
#include "fscrypt_disk.h"

static const struct e4_mode_info modes[] = {
	{ E4_MODE_AES_256_XTS, "AES-256-XTS", 64, 1, 0, 1 },
	{ E4_MODE_AES_256_CTS, "AES-256-CTS-CBC", 32, 0, 1, 1 },
	{ E4_MODE_AES_128_CBC, "AES-128-CBC-ESSIV", 16, 1, 0, 1 },
	{ E4_MODE_AES_128_CTS, "AES-128-CTS-CBC", 16, 0, 1, 1 },
	{ E4_MODE_ADIANTUM, "Adiantum", 32, 1, 1, 1 },
	{ E4_MODE_AES_256_HCTR2, "AES-256-HCTR2", 32, 0, 1, 1 },
};

const struct e4_mode_info *e4_mode_lookup(uint8_t mode)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].mode == mode)
			return &modes[i];
	return NULL;
}

const char *e4_mode_name(uint8_t mode)
{
	const struct e4_mode_info *m = e4_mode_lookup(mode);

	return m ? m->name : "unknown";
}
