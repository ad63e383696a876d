/*
 * cli/options.h -- the command line of the vlad program
 */
#ifndef VL_CLI_OPTIONS_H
#define VL_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* Everything the command line says (vlad [OPTIONS] [FILE [ARGS...]]). */
typedef struct VlOptions {
    const char **exprs;     /* the -e texts, in order (nexprs of them) */
    int nexprs;
    const char **dirs;      /* the -I directories, NULL-terminated */
    int ndirs;
    int64_t step_limit;     /* --step-limit (0: none) */
    int64_t heap_limit;     /* --heap-limit in bytes (0: none) */
    const char *checkpoint; /* --checkpoint SPEC, or NULL */
    const char *resume;     /* --resume FILE, or NULL */
    char *autosave;         /* --autosave FILE (malloc'd), or NULL */
    double autosave_every;  /* its every=SECONDS (VL_AUTOSAVE_EVERY) */
    int autosave_every_given;   /* every= was given (else --resume goes
                                   on at the saved run's interval) */
    int stats;              /* --stats */
    int progress;           /* --progress */
    int disassemble;        /* --disassemble: list FILE's bytecode */
    int quiet;              /* -q, --quiet */
    const char *file;       /* FILE ("-": standard input), or NULL */
    char **args;            /* the program's ARGS (nargs of them) */
    int nargs;
    char **completed;       /* abbreviated long options written out in
                               full (malloc'd; values point into them) */
    int ncompleted;
} VlOptions;

/* The seconds between autosaves when --autosave gives none. */
#define VL_AUTOSAVE_EVERY 30.0

/* What vl_options_parse decided. */
enum {
    VL_OPTIONS_RUN = 0,     /* run with the options */
    VL_OPTIONS_EXIT = 1,    /* --help was printed: exit 0 */
    VL_OPTIONS_USAGE = 2,   /* bad usage, already reported: exit 2 */
    VL_OPTIONS_VERSION = 3  /* --version: the caller prints the version
                               (with the REPL's line editing, which the
                               options do not know) and exits 0 */
};

/* Parse argv into 'o' (whose arrays are malloc'ed: vl_options_free).
   Reports bad usage on stderr with a usage line.  Returns VL_OPTIONS_*,
   or -1 when memory is exhausted. */
int vl_options_parse(int argc, char **argv, VlOptions *o);

void vl_options_free(VlOptions *o);

/* Print the usage line on stderr. */
void vl_options_usage(void);

/* Report a usage error ("vlad: " + the formatted message + the usage
   line) on stderr; returns 2, the exit status of bad usage. */
int vl_options_error(const char *fmt, const char *arg);

/* A count: decimal digits only, at most INT64_MAX.  1 if valid. */
int vl_options_parse_count(const char *s, int64_t *out);

/* The program file named 'path' as the user wrote it: 'path' when it
   exists or ends in .vlad, else PATH.vlad (written to 'buf' of 'n'
   bytes) when that exists, as include finds NAME.vlad. */
const char *vl_options_program_path(const char *path, char *buf, size_t n);

/* A step count: a count, or a decimal real with an integral value below
   2^63 such as 1e9.  1 if valid. */
int vl_options_parse_steps(const char *s, int64_t *out);

/* A size in bytes: a count with an optional suffix k, M or G (powers of
   1024, either case).  1 if valid and representable. */
int vl_options_parse_size(const char *s, int64_t *out);

/* Whether 's' is a real in decimal syntax (as the reader accepts it). */
int vl_options_is_decimal(const char *s);

#endif
