/* The JSON-lines writer; see common/jsonl.h. */
#include "common/jsonl.h"

void jsonl_escape(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (*p < 0x20) /* the other controls JSON forbids */
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void jsonl_begin(struct jsonl *j, FILE *out)
{
	j->out = out;
	j->any = false;
	fputc('{', out);
}

/* The separator and the key of the next member. */
static void jsonl_key(struct jsonl *j, const char *key)
{
	if (j->any)
		fputc(',', j->out);
	j->any = true;
	jsonl_escape(j->out, key);
	fputc(':', j->out);
}

void jsonl_str(struct jsonl *j, const char *key, const char *val)
{
	jsonl_key(j, key);
	jsonl_escape(j->out, val);
}

void jsonl_u64(struct jsonl *j, const char *key, uint64_t val)
{
	jsonl_key(j, key);
	fprintf(j->out, "%llu", (unsigned long long)val);
}

void jsonl_double(struct jsonl *j, const char *key, int decimals, double val)
{
	jsonl_key(j, key);
	fprintf(j->out, "%.*f", decimals, val);
}

void jsonl_end(struct jsonl *j)
{
	fputs("}\n", j->out);
}
