/* host_rates.c - the host's CPU pressure per interval. See host_rates.h. */
#include "host_rates.h"

#include <math.h>
#include <string.h>

#include "../util/util.h"

void host_view_update(struct host_view *v, const struct hostload_sample *prev, const struct hostload_sample *cur,
		      double dt)
{
	bool seen = v->seen || (cur && cur->read);
	memset(v, 0, sizeof *v);
	v->seen = seen;
	v->cpu_some_pct = v->run_queue = v->load1 = v->srv_cpu = v->srv_wait_ms = v->srv_wait_pct = NAN;
	if (!cur) { /* the model passes none while the server is down or stalled */
		v->why = "not read while the server is not up";
		return;
	}
	if (!cur->read) {
		v->why = "not read: the server is not on this host";
		return;
	}
	v->ncpu = (int)cur->ncpu;
	v->run_queue = cur->procs_running > 0 ? cur->procs_running - 1.0 : NAN;
	v->load1 = cur->load1_x100 / 100.0;
	v->srv_tasks = (int)cur->srv_tasks;
	if (!cur->srv_tasks)
		str_copy(v->srv_why, sizeof v->srv_why,
			 cur->srv_why[0] ? cur->srv_why : "the server's threads were not recorded in this file");
	if (!prev || !prev->read || !(dt > 0)) {
		v->why = "first reading";
		return;
	}
	v->ok = true;
	if (cur->has_psi && prev->has_psi && cur->psi_cpu_some_us >= prev->psi_cpu_some_us) {
		v->cpu_some_pct = (double)(cur->psi_cpu_some_us - prev->psi_cpu_some_us) / (dt * 1e6) * 100;
		if (v->cpu_some_pct > 100)
			v->cpu_some_pct = 100;
	}
	if (cur->srv_tasks > 0 && cur->srv_slices >= prev->srv_slices && cur->srv_run_ns >= prev->srv_run_ns &&
	    cur->srv_delay_ns >= prev->srv_delay_ns) {
		double run = (double)(cur->srv_run_ns - prev->srv_run_ns),
		       delay = (double)(cur->srv_delay_ns - prev->srv_delay_ns);
		double slices = (double)(cur->srv_slices - prev->srv_slices);
		v->srv_cpu = run / 1e9 / dt;
		if (slices > 0)
			v->srv_wait_ms = delay / slices / 1e6;
		if (run + delay > 0)
			v->srv_wait_pct = delay / (run + delay) * 100;
	}
}

double host_view_wanted(const struct host_view *v)
{
	if (!isfinite(v->srv_cpu) || !isfinite(v->srv_wait_pct))
		return NAN;
	/* run / (run + wait) of the time wanted is 1 - the wait share */
	double run_share = 1 - v->srv_wait_pct / 100;
	return run_share > 0.01 ? v->srv_cpu / run_share : v->srv_cpu * 100;
}

/* The host's own CPU pressure (PSI some) at HOST_PSI_BUSY_PCT x f, with
 * more runnable tasks than cores. */
static bool psi_busy(const struct host_view *v, double f)
{
	return v->ok && v->cpu_some_pct >= HOST_PSI_BUSY_PCT * f && v->ncpu > 0 && v->run_queue > v->ncpu;
}

bool host_view_busy_by(const struct host_view *v, double f)
{
	if (!v->ok)
		return false;
	if (isfinite(v->srv_wait_pct) && isfinite(v->srv_cpu))
		return v->srv_wait_pct >= HOST_WAIT_BUSY_PCT * f && host_view_wanted(v) >= HOST_CPU_MIN_CORES;
	return psi_busy(v, f);
}

bool host_view_pressured(const struct host_view *v)
{
	return psi_busy(v, 1);
}

bool host_view_busy(const struct host_view *v)
{
	return host_view_busy_by(v, 1);
}

void host_view_text(const struct host_view *v, char *buf, size_t len)
{
	struct strbuf b;
	sb_init(&b);
	if (isfinite(v->cpu_some_pct))
		sb_printf(&b, "CPU pressure %.0f%%", v->cpu_some_pct);
	if (isfinite(v->run_queue))
		sb_printf(&b, "%srun queue %.0f on %d core%s", b.len ? ", " : "", v->run_queue, v->ncpu,
			  v->ncpu == 1 ? "" : "s");
	if (isfinite(v->srv_wait_ms))
		sb_printf(&b,
			  "%sthe server's threads wait %.2f ms for a CPU each time they run (%.0f%% of their time; "
			  "%d read)",
			  b.len ? ", " : "", v->srv_wait_ms, isfinite(v->srv_wait_pct) ? v->srv_wait_pct : 0,
			  v->srv_tasks);
	str_copy(buf, len, b.len ? b.s : "no host figures");
	sb_free(&b);
}
