// SPDX-License-Identifier: GPL-2.0
/* shardrec's command line: the only place that prints or exits. */
#include "numa/numa.h"
#include "recorder/codec/zunpass.h"
#include "recorder/header/dso_hits.h"
#include "recorder/job/job.h"
#include "recorder/jobview/jobview.h"
#include "recorder/util/log.h"
#include "recorder/util/progress.h"
#include "recorder/cli/loss_print.h"
#include "recorder/events/evcatalog.h"
#include "recorder/loss/loss.h"
#include "recorder/merge/merge.h"
#include "recorder/util/privs.h"
#include "recorder/util/shell.h"
#include "recorder/util/suggest.h"
#include "recorder/cli/cli_record.h"
#include "recorder/events/record_opts.h"
#include "recorder/capture/session.h"
#include "recorder/header/sysinfo.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char main_usage[] =
	"Usage: shardrec COMMAND [options]\n"
	"\n"
	"Commands:\n"
	"  record [options] [-- command]   record into one perf.data (see record --help)\n"
	"  job [options] -- app [args]     in a batch job's ranks: one perf.data per node\n"
	"  merge DIR [-o FILE]             merge a kept or killed run's shard directory\n"
	"  topology [options]              print the writer placement plan\n"
	"  loss [options] FILE...          data loss of perf.data files (any recorder), --plot PNG\n"
	"  jobview [options] PATH...       one view of a job's per-node outputs: nodes, hot\n"
	"                                  symbols and their imbalance, ranks\n"
	"  list [hw|sw|cache|tracepoint|pmu|GLOB]\n"
	"                                  the events this machine offers, as perf list\n"
	"  help [COMMAND]                  this text, or COMMAND's options\n"
	"  version                         print the version\n";

static void sink(enum log_level level, const char *msg)
{
	static const char *const prefix[] = {"error: ", "warning: ", "", ""};

	if (level == LOG_INFO && msg[0] == '[')
		fprintf(stderr, "%s\n", msg);
	else
		fprintf(stderr, "shardrec: %s%s\n", prefix[level], msg);
}

static int cmd_record(int argc, char **argv, int full_argc, char **full_argv)
{
	struct record_opts o;
	char err[512];
	int ret = record_opts__parse(&o, argc, argv, err, sizeof(err));

	if (ret == 1) {
		fputs(record_opts__usage(), stdout);
		return 0;
	}
	if (ret) {
		pr_err("%s", err);
		record_opts__release(&o);
		return 2;
	}
	o.full_argc = full_argc;
	o.full_argv = full_argv;
	log__set_level(o.quiet ? LOG_WARN : o.verbose > 1 ? LOG_DEBUG : LOG_INFO);
	ret = session__record(&o);
	record_opts__release(&o);
	return ret;
}

static int cmd_job(int argc, char **argv, int full_argc, char **full_argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(job__usage(), stdout);
		return 0;
	}
	return job__main(argc, argv, full_argc, full_argv);
}

/* The usage is printed here, for -h or --help anywhere: jobview takes no free-form argument. */
static int cmd_jobview(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(jobview__usage(), stdout);
			return 0;
		}
	return jobview__main(argc, argv);
}

static const char merge_usage[] =
	"Usage: shardrec merge DIR [-o FILE] [--recover] [--decompress] [-B]\n"
	"\n"
	"Merge the shard directory DIR (FILE.shards/ of a run with --keep-shards,\n"
	"or of a run that was killed) into one perf.data.\n"
	"  -o, --output FILE   output (default: DIR without .shards, else perf.data);\n"
	"                      '-': perf's pipe format on stdout, as perf record -o -\n"
	"      --recover       accept shards cut by a kill (partial records dropped)\n"
	"      --decompress    compressed shards: write plain, time-sorted records\n"
	"  -B, --no-buildid    do not collect build ids\n"
	"  -q, --quiet         no summary\n";

static void default_output(const char *dir, char *out, size_t len)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n > 7 && !strncmp(dir + n - 7, ".shards", 7))
		snprintf(out, len, "%.*s", (int)(n - 7), dir);
	else
		snprintf(out, len, "perf.data");
}

static int cmd_merge(int argc, char **argv)
{
	static const struct option lo[] = {
		{"output", required_argument, NULL, 'o'}, {"recover", no_argument, NULL, 'r'},
		{"decompress", no_argument, NULL, 'd'},
		{"no-buildid", no_argument, NULL, 'B'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	struct merge_opts mo = {
		.build_ids = true, .dec = &zunpass__ops, .hits = &dso_hits__ops,
	};
	struct progress prog;
	struct merge_stats st;
	char note[256];
	char out[4096], target[4096], err[1024];
	bool quiet = false;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:Bqh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': mo.output = optarg; break;
		case 'r': mo.recover = true; break;
		case 'd': mo.decompress = true; break;
		case 'B': mo.build_ids = false; break;
		case 'q': quiet = true; break;
		case 'h': fputs(merge_usage, stdout); return 0;
		default: pr_err("merge: bad option '%s' (see shardrec merge --help)", argv[optind - 1]); return 2;
		}
	}
	if (optind != argc - 1) {
		pr_err("merge: give exactly one shard directory (see shardrec merge --help)");
		return 2;
	}
	mo.dir = argv[optind];
	if (!mo.output) {
		default_output(mo.dir, out, sizeof(out));
		mo.output = out;
	}
	if (!strcmp(mo.output, "-")) {
		/* A reader that goes away is an EPIPE with one line, not a silent death. */
		signal(SIGPIPE, SIG_IGN);
		mo.pipe = true;
		mo.pipe_fd = STDOUT_FILENO;
	} else {
		/* -o as record (and perf) treat it: through a link to nothing, a directory moved. */
		ret = merge__resolve_output(mo.output, target, sizeof(target));
		if (ret) {
			pr_err("merge: -o %s: %s", mo.output, strerror(-ret));
			return 1;
		}
		mo.output = target;
		if (merge__prepare_output(mo.output, err, sizeof(err))) {
			pr_err("merge: %s", err);
			return 1;
		}
	}
	if (!quiet) {
		progress__init(&prog, "merging", stderr);
		mo.progress = progress__cb;
		mo.progress_arg = &prog;
	}
	ret = merge__run(&mo, &st, err, sizeof(err));
	if (!quiet)
		progress__finish(&prog, st.bytes_in, st.bytes_in);
	if (ret) {
		pr_err("%s", err);
	} else {
		if (err[0])
			pr_warn("%s", err);
		/* Said even with -q: the file lacks the end of the recording. */
		if (st.incomplete)
			pr_warn("%s: incomplete run (the recorder did not finish: killed, or still "
				"recording): merged what is there, without the final lost-sample "
				"counts; %s's cmdline says so", mo.dir, mo.output);
		if (!quiet)
			fprintf(stderr,
				"[ shardrec merge: wrote %.3f MB %s (%llu samples), %llu lost records, "
				"%llu lost samples, %llu truncated and %llu damaged shards, "
				"%llu dropped passes%s, %.2f s ]\n",
				st.bytes_out / 1e6, mo.output, (unsigned long long)st.samples,
				(unsigned long long)st.lost_records,
				(unsigned long long)st.lost_samples,
				(unsigned long long)st.truncated_shards,
				(unsigned long long)st.damaged_shards,
				(unsigned long long)st.dropped_passes,
				st.incomplete ? ", incomplete run" : "", st.seconds);
		if (merge_stats__late_note(&st, note, sizeof(note))) {
			if (st.late)
				pr_warn("%s", note);
			else if (!quiet)
				fprintf(stderr, "[ shardrec merge: %s ]\n", note);
		}
		if (!quiet && (st.dropped_records || st.dropped_features))
			pr_warn("merge --recover dropped %llu damaged records of header.data and the "
				"tail files and %llu damaged feature sections",
				(unsigned long long)st.dropped_records,
				(unsigned long long)st.dropped_features);
		/*
		 * The output is durable (fsynced, then named): record would remove
		 * the shards now; here they are the user's, and a later record -o
		 * refuses while they are there, so say how they go.
		 */
		if (!quiet) {
			shell__quote(mo.dir, out, sizeof(out));
			fprintf(stderr, "[ shardrec merge: %s is no longer needed: rm -r %s ]\n",
				mo.dir, out);
		}
	}
	merge_stats__release(&st);
	return ret ? 1 : 0;
}

static const char loss_usage[] =
	"Usage: shardrec loss [--json] [--plot FILE.png] FILE...\n"
	"\n"
	"Data loss of perf.data files or perf --threads directories, shardrec's or\n"
	"perf record's (-z files are decompressed): samples, PERF_RECORD_LOST and\n"
	"LOST_SAMPLES, and lost_time / elapsed_time (definition printed below the table).\n"
	"  -j, --json          one JSON object per file\n"
	"  -p, --plot FILE.png also draw lost records over time per CPU (from the timed\n"
	"                      PERF_RECORD_LOST records), one panel per file; needs gnuplot\n";

static int cmd_loss(int argc, char **argv)
{
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'j'}, {"plot", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	struct loss_stats *st;
	const char *plot = NULL;
	bool json = false;
	char err[1024];
	int c, n, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jp:h", lo, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'p': plot = optarg; break;
		case 'h': fputs(loss_usage, stdout); return 0;
		default: pr_err("loss: bad option '%s' (see shardrec loss --help)", argv[optind - 1]); return 2;
		}
	}
	n = argc - optind;
	if (n < 1) {
		pr_err("loss: give at least one perf.data (see shardrec loss --help)");
		return 2;
	}
	st = calloc(n, sizeof(*st));
	if (!st)
		return 1;
	for (int i = 0; i < n && !ret; i++)
		if (loss__analyze(argv[optind + i], &zunpass__ops, &st[i], err, sizeof(err))) {
			pr_err("loss: %s", err);
			ret = 1;
		}
	if (!ret && json)
		loss__fprint_json(stdout, (const char *const *)argv + optind, st, n);
	else if (!ret)
		loss__fprint_table(stdout, (const char *const *)argv + optind, st, n);
	if (!ret && plot && loss__plot(plot, (const char *const *)argv + optind, st, n, err,
				       sizeof(err))) {
		pr_err("loss: %s", err);
		ret = 1;
	}
	for (int i = 0; i < n; i++)
		loss_stats__release(&st[i]);
	free(st);
	return ret;
}

static const char topology_usage[] =
	"Usage: shardrec topology [--threads=SPEC] [-C LIST] [-m PAGES]\n"
	"                         [--topology-xml FILE | --synthetic SPEC]\n"
	"\n"
	"Print the writer plan (default --threads=auto): groups, CPUs, node, ring\n"
	"memory per node.\n"
	"      --threads=SPEC        writer groups, as record --threads (auto, numa,\n"
	"                            package, l3, core, cpu, N, 0-3/0:4-7/4)\n"
	"  -C, --cpu LIST            plan for these CPUs only (default: all online)\n"
	"  -m, --mmap-pages N        ring pages per CPU, for the memory per node\n"
	"      --topology-xml FILE   plan for an hwloc XML topology (lstopo --of xml)\n"
	"      --synthetic SPEC      plan for an hwloc synthetic topology\n";

static int cmd_topology(int argc, char **argv)
{
	/* The same plan code as record --dry-run: reuse its option parser. */
	char **v = calloc(argc + 2, sizeof(*v));
	struct record_opts o;
	char err[512];
	int ret;

	if (!v)
		return 1;
	v[0] = "record";
	v[1] = "--dry-run";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(topology_usage, stdout);
			free(v);
			return 0;
		}
		v[i + 1] = argv[i];
	}
	ret = record_opts__parse(&o, argc + 1, v, err, sizeof(err));
	if (ret) {
		pr_err("topology: %s", ret == 1 ? "see --help" : err);
		free(v);
		return 2;
	}
	if (!o.cpu_list)
		o.system_wide = true;
	ret = session__record(&o);
	record_opts__release(&o);
	free(v);
	return ret;
}

static const char list_usage[] =
	"Usage: shardrec list [--raw-dump] [hw|sw|cache|tracepoint|pmu|GLOB]\n"
	"\n"
	"List the events this machine offers, as perf list: software, hardware and\n"
	"hw cache events that open here, tracepoints, each PMU's events (PMU/EVENT/),\n"
	"and each PMU with its format terms (PMU/TERM=VALUE,.../). A GLOB without\n"
	"wildcards matches part of a name.\n"
	"      --raw-dump            bare names, one per line (for shell completion)\n";

static int cmd_list(int argc, char **argv)
{
	static const struct option lo[] = {
		{"raw-dump", no_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *sel = NULL;
	unsigned kinds = EVCAT_ALL;
	bool raw = false;
	int c, n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r': raw = true; break;
		case 'h': fputs(list_usage, stdout); return 0;
		default: pr_err("list: bad option '%s' (see shardrec list --help)", argv[optind - 1]); return 2;
		}
	}
	if (argc - optind > 1) {
		pr_err("list: give at most one of hw, sw, cache, tracepoint, pmu or a glob");
		return 2;
	}
	if (optind < argc) {
		sel = argv[optind];
		kinds = evcatalog__kinds(sel);
	}
	n = evcatalog__fprint(stdout, NULL, kinds ? kinds : EVCAT_ALL, kinds ? NULL : sel, raw);
	if (n < 0) {
		pr_err("list: %s", strerror(-n));
		return 1;
	}
	return 0;
}

/* The usage text of @cmd, NULL for an unknown command. */
static const char *command_usage(const char *cmd)
{
	if (!strcmp(cmd, "record"))
		return record_opts__usage();
	if (!strcmp(cmd, "job"))
		return job__usage();
	if (!strcmp(cmd, "merge"))
		return merge_usage;
	if (!strcmp(cmd, "loss"))
		return loss_usage;
	if (!strcmp(cmd, "jobview"))
		return jobview__usage();
	if (!strcmp(cmd, "topology"))
		return topology_usage;
	if (!strcmp(cmd, "list"))
		return list_usage;
	if (!strcmp(cmd, "help") || !strcmp(cmd, "version"))
		return main_usage;
	return NULL;
}

/* `shardrec help [COMMAND]`, as `perf help record`. */
static int cmd_help(int argc, char **argv)
{
	const char *text = argc > 1 ? command_usage(argv[1]) : main_usage;

	if (!text) {
		pr_err("help: unknown command '%s' (see shardrec help)", argv[1]);
		return 2;
	}
	fputs(text, stdout);
	return 0;
}

/*
 * An unknown command: perf's analysis commands are perf's (shardrec writes
 * what they read); a typo gets git's "did you mean".
 */
static int unknown_command(const char *cmd)
{
	static const char *const commands[] = {"record", "job", "jobview", "merge", "loss",
					       "topology", "list", "help", "version"};
	static const char *const readers[] = {"report", "script", "annotate", "inject", "diff",
					      "buildid-list", "evlist", "c2c", "mem", "sched",
					      "trace", "kmem", "lock", "timechart", "data"};
	const char *near = suggest__closest(cmd, commands, sizeof(commands) / sizeof(commands[0]));

	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		if (!strcmp(cmd, readers[i])) {
			pr_err("'%s' is perf's: shardrec records, perf reads what it wrote (perf %s "
			       "-i perf.data)", cmd, cmd);
			return 2;
		}
	if (!strcmp(cmd, "stat") || !strcmp(cmd, "top")) {
		pr_err("'%s' is perf's: shardrec records perf.data files (perf %s counts or shows "
		       "events live)", cmd, cmd);
		return 2;
	}
	if (near)
		pr_err("unknown command '%s': did you mean '%s'? (see shardrec help)", cmd, near);
	else
		pr_err("unknown command '%s' (see shardrec help)", cmd);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	char perr[256];

	/* Bare `shardrec`: the usage, and 1, as perf. */
	if (!cmd) {
		fputs(main_usage, stdout);
		return 1;
	}

	log__set_sink(sink);
	log__set_level(LOG_INFO);
	if (privs__init(perr, sizeof(perr))) {
		pr_err("%s", perr);
		return 1;
	}
	/* Only record opens events: the other commands need no capability. */
	if (strcmp(cmd, "record") && strcmp(cmd, "job") && privs__drop(0, perr, sizeof(perr))) {
		pr_err("%s", perr);
		return 1;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1, argc, argv);
	if (!strcmp(cmd, "job"))
		return cmd_job(argc - 1, argv + 1, argc, argv);
	if (!strcmp(cmd, "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "loss"))
		return cmd_loss(argc - 1, argv + 1);
	if (!strcmp(cmd, "jobview"))
		return cmd_jobview(argc - 1, argv + 1);
	if (!strcmp(cmd, "topology"))
		return cmd_topology(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("shardrec %s\n", SHARDREC_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
		return cmd_help(argc - 1, argv + 1);
	return unknown_command(cmd);
}
