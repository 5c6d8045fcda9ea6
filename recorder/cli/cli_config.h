/* SPDX-License-Identifier: GPL-2.0 */
/* perf's config files for `record`: the record.* keys that apply to shardrec. */
#ifndef SHARDREC_CLI_CONFIG_H
#define SHARDREC_CLI_CONFIG_H

#include "recorder/events/record_opts.h"

#include <stddef.h>

/*
 * Reads perf's config as perf does: only $PERF_CONFIG when it is set, else
 * /etc/perfconfig (unless $PERF_CONFIG_NOSYSTEM) then ~/.perfconfig (unless
 * $PERF_CONFIG_NOGLOBAL), later files winning; applies record.build-id,
 * record.call-graph (= call-graph.record-mode: the mode -g selects),
 * call-graph.dump-size, record.mmap-flush and buildid.dir (perf's for
 * every command: the build-id cache) to @o. Missing files are
 * skipped; keys shardrec has no use for warn. Call before the command line,
 * which wins. 0 / -EINVAL with one line in @err (a bad value, as perf).
 */
int record_opts__config(struct record_opts *o, char *err, size_t errlen);

#endif
