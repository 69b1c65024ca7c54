/*
 * overrides.h - the effective protocol of a run: the protocol file with the
 * command line's workload options (--shapes, --tile, --seed, --scale, --eps,
 * --strategies, --invocations) applied on top. The run saves the effective
 * protocol in its bundle, so the bundle always says what was run.
 */
#ifndef SE_OVERRIDES_H
#define SE_OVERRIDES_H

#include "tool/cli.h"
#include "model/protocol.h"

/* Applies o's given options to p. A new --tile re-resolves the protocol's
 * shapes written with T. Refuses two shapes that resolve to the same size,
 * naming both. */
se_status se_protocol_apply_overrides(se_protocol *p, const se_run_opts *o, se_err *err);

#endif
