// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Exporters: a thread's history in formats other tools read, for `ptrec
 * export` and any other front end.  JSON lines and CSV give one record per
 * instruction with its symbol and source line (JSON lines also its time in
 * ns and the trace's events before it, the last one those after it too);
 * perfetto gives Chrome trace events
 * (ui.perfetto.dev, chrome://tracing), one slice per function invocation,
 * nested by call depth, one track per thread, with the trace's events as
 * instant events, the core:bus ratio as a counter track, and a flow arrow
 * from each interrupted instruction to where execution went on.
 *
 * They live in libptrec, not in the CLI, because they read the engine's
 * threads and time conversion; the front end only opens the output.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rp_internal.h"

int rp_export_format_by_name(const char *name)
{
	if (!strcmp(name, "jsonl"))
		return RP_EXPORT_JSONL;
	if (!strcmp(name, "csv"))
		return RP_EXPORT_CSV;
	if (!strcmp(name, "perfetto"))
		return RP_EXPORT_PERFETTO;
	return -RP_ERR_INVAL;
}

static double tsc_us(const struct sb_manifest *m, uint64_t tsc)
{
	struct ptrec_sb_time conv = { .time_shift = m->time.time_shift,
				      .time_mult = m->time.time_mult,
				      .time_zero = 0 };

	return (double)sb_time_to_ns(&conv, tsc) / 1000.0;
}

/* One event as a JSON object: kind, text, addresses and payload. */
static json_t *event_json(struct rp_session *s, uint32_t tid,
			  const struct rp_event *ev, const struct rp_insn *prev)
{
	char text[256], ip[24], to[24], payload[24];
	json_t *o;

	if (rp_format_event(s, tid, ev, prev, text, sizeof(text)))
		text[0] = '\0';
	snprintf(ip, sizeof(ip), "0x%" PRIx64, ev->ip);
	snprintf(to, sizeof(to), "0x%" PRIx64, ev->to);
	/* A string: JSON readers lose 64-bit integers (doubles). */
	snprintf(payload, sizeof(payload), "0x%" PRIx64, ev->payload);
	o = json_pack("{s:s, s:s, s:s}", "kind", rp_event_name(ev->kind),
		      "text", text, "payload", payload);
	if (!o)
		return NULL;
	if (!(ev->flags & RP_EVF_IP_SUPPRESSED) && ev->ip)
		json_object_set_new(o, "ip", json_string(ip));
	if (ev->kind == RP_EV_INTERRUPT || ev->kind == RP_EV_ASYNC_DISABLED)
		json_object_set_new(o, "to", json_string(to));
	if (ev->flags & RP_EVF_TSC)
		json_object_set_new(o, "tsc",
				    json_integer((json_int_t)ev->tsc));
	if (ev->kind == RP_EV_PTWRITE)
		json_object_set_new(o, "size", json_integer(ev->size));
	return o;
}

/* The events before instruction @pos (from *@next on) as a JSON array,
 * NULL when there are none.
 */
static json_t *events_before(struct rp_session *s, uint32_t tid,
			     uint64_t pos, const struct rp_insn *prev,
			     uint64_t *next)
{
	json_t *a = NULL;
	struct rp_event ev;

	for (; !rp_thread_event(s, tid, *next, &ev) && ev.before <= pos;
	     ++*next) {
		if (ev.before < pos)
			continue;
		if (!a)
			a = json_array();
		if (a)
			json_array_append_new(a, event_json(s, tid, &ev, prev));
	}
	return a;
}

static int export_insns(struct rp_session *s, uint32_t tid, FILE *f,
			bool csv)
{
	struct rp_cursor *c;
	struct rp_insn insn, prev;
	struct rp_cycles cy = { 0 };
	struct rp_sym sym;
	uint64_t pos, n, ev = 0, ns, cyc;
	int ret;

	ret = rp_cursor_new(s, tid, &c);
	if (ret)
		return ret == -RP_ERR_RANGE ? 0 : ret;
	n = rp_cursor_pos(c) + 1;
	for (pos = 0; pos < n && !ferror(f); pos++) {
		ret = rp_cursor_peek(c, pos, &insn);
		if (ret)
			break;
		rp_symbolize(s, &insn, &sym);
		if (csv) {
			fprintf(f, "%u,%" PRIu64 ",0x%" PRIx64 ",%" PRIu64
				",%s,%" PRIu64 ",%s,%d\n", tid, pos + 1,
				insn.ip, insn.tsc,
				sym.function ? sym.function : "",
				sym.offset, sym.file ? sym.file : "", sym.line);
		} else {
			char ip[24], *text;
			json_t *o;

			snprintf(ip, sizeof(ip), "0x%" PRIx64, insn.ip);
			json_t *evs;

			o = json_pack("{s:I, s:I, s:s, s:I}",
				      "tid", (json_int_t)tid,
				      "n", (json_int_t)(pos + 1), "ip", ip,
				      "tsc", (json_int_t)insn.tsc);
			if (!o) {
				ret = -RP_ERR_NOMEM;
				break;
			}
			if (insn.tsc && !rp_tsc_to_ns(s, insn.tsc, &ns))
				json_object_set_new(o, "ns", json_integer(
					(json_int_t)ns));
			/* Core cycles where the stream has CYC (cycles.c). */
			if (!rp_insn_cycles(s, tid, &cy, pos ? &prev : NULL,
					    &insn, &cyc) && cy.on)
				json_object_set_new(o, "cycles", json_integer(
					(json_int_t)cyc));
			evs = events_before(s, tid, pos, pos ? &prev : NULL,
					    &ev);
			if (evs)
				json_object_set_new(o, "events", evs);
			/* Those after the last one end the history. */
			evs = pos + 1 == n ? events_before(s, tid, n, &insn,
							   &ev) : NULL;
			if (evs)
				json_object_set_new(o, "events_after", evs);
			if (sym.function) {
				json_object_set_new(o, "function",
						    json_string(sym.function));
				json_object_set_new(o, "offset",
					json_integer((json_int_t)sym.offset));
			}
			if (sym.file) {
				json_object_set_new(o, "file",
						    json_string(sym.file));
				json_object_set_new(o, "line",
						    json_integer(sym.line));
			}
			text = json_dumps(o, JSON_COMPACT);
			json_decref(o);
			if (!text) {
				ret = -RP_ERR_NOMEM;
				break;
			}
			fprintf(f, "%s\n", text);
			free(text);
		}
		prev = insn;
	}
	rp_cursor_free(c);
	return ret;
}

/* One complete ("X") event for call segment @j's invocation. */
static void slice(struct rp_session *s, struct rp_cursor *c, json_t *events,
		  const struct rp_thread *t, const struct rp_call *call,
		  uint64_t last)
{
	struct rp_insn a, b;

	if (rp_cursor_peek(c, call->first, &a) || rp_cursor_peek(c, last, &b))
		return;
	json_array_append_new(events,
		json_pack("{s:s, s:s, s:s, s:f, s:f, s:I, s:I}",
			  "name", call->function, "cat", "call", "ph", "X",
			  "ts", tsc_us(s->m, a.tsc),
			  "dur", tsc_us(s->m, b.tsc) - tsc_us(s->m, a.tsc),
			  "pid", (json_int_t)t->pid, "tid", (json_int_t)t->tid));
}

/* The time of position @pos (clamped to the history) in us, or of the
 * event itself when it has one.
 */
static double event_us(struct rp_session *s, struct rp_cursor *c,
		       const struct rp_thread *t, const struct rp_event *ev,
		       uint64_t pos)
{
	struct rp_insn insn;

	if (ev && (ev->flags & RP_EVF_TSC))
		return tsc_us(s->m, ev->tsc);
	if (!t->insns)
		return 0;
	if (pos >= t->insns)
		pos = t->insns - 1;
	return rp_cursor_peek(c, pos, &insn) ? 0 : tsc_us(s->m, insn.tsc);
}

/* One end ("s" start, "f" finish) of flow @id, at @ts. */
static void flow_event(json_t *events, const char *ph, uint64_t id,
		       double ts, json_int_t pid, json_int_t tid)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:f, s:I, s:I}",
			      "name", "interrupt", "cat", "flow", "ph", ph,
			      "id", (json_int_t)id, "ts", ts, "pid", pid,
			      "tid", tid);

	/* The finish binds to the enclosing slice (Chrome's "bp": "e"). */
	if (o && *ph == 'f')
		json_object_set_new(o, "bp", json_string("e"));
	json_array_append_new(events, o);
}

/*
 * The trace's events of @t: instant events ("i", thread scope), the
 * core:bus ratio as a counter ("C"), and a flow ("s" to "f") from each
 * interrupted instruction (an asynchronous branch, or tracing disabled
 * asynchronously) to where the history goes on: the handler.
 */
static void perfetto_events(struct rp_session *s, struct rp_cursor *c,
			    json_t *events, const struct rp_thread *t)
{
	json_int_t pid = (json_int_t)t->pid, tid = (json_int_t)t->tid;
	uint64_t flow = (uint64_t)t->tid << 32;
	struct rp_insn prev;
	size_t i;

	for (i = 0; i < t->nevs; i++) {
		const struct rp_event *ev = &t->evs[i];
		bool have_prev = ev->before &&
				 !rp_cursor_peek(c, ev->before - 1, &prev);
		double ts = event_us(s, c, t, ev, ev->before);
		json_t *args = event_json(s, t->tid, ev,
					    have_prev ? &prev : NULL);

		json_array_append_new(events,
			json_pack("{s:s, s:s, s:s, s:s, s:f, s:I, s:I, s:o*}",
				  "name", rp_event_name(ev->kind),
				  "cat", "event", "ph", "i", "s", "t",
				  "ts", ts, "pid", pid, "tid", tid,
				  "args", args));
		if (ev->kind == RP_EV_CBR)
			json_array_append_new(events,
				json_pack("{s:s, s:s, s:f, s:I, s:{s:I}}",
					  "name", "core:bus ratio", "ph", "C",
					  "ts", ts, "pid", pid, "args",
					  "ratio", (json_int_t)ev->payload));
		if (ev->kind == RP_EV_INTERRUPT ||
		    ev->kind == RP_EV_ASYNC_DISABLED) {
			/* From the instruction before, to the next one. */
			flow++;
			flow_event(events, "s", flow,
				   event_us(s, c, t, NULL, ev->before ?
					    ev->before - 1 : 0), pid, tid);
			flow_event(events, "f", flow,
				   event_us(s, c, t, NULL, ev->before),
				   pid, tid);
		}
	}
}

/*
 * Chrome trace events: one complete event per function invocation, nested
 * by call depth, one track per thread.  A call opens an invocation; a
 * return closes the deeper ones and continues the caller's; reaching
 * another function sideways (tail call, longjmp, signal handler) replaces
 * the invocation at that depth.
 */
static int export_perfetto(struct rp_session *s, uint32_t tid, json_t *events)
{
	const struct rp_thread *t = rp_find_thread(s, tid);
	struct rp_call *calls;
	struct rp_cursor *c;
	size_t n, i, *open;
	int ret, top = -1;

	ret = rp_calls_build(s, tid, &calls, &n);
	if (ret)
		return ret;
	ret = rp_cursor_new(s, tid, &c);
	if (ret == -RP_ERR_RANGE) {
		free(calls);
		return 0;	/* an empty history */
	}
	open = calloc(n ? n : 1, sizeof(*open));
	if (ret || !open) {
		if (!ret)
			rp_cursor_free(c);
		free(calls);
		free(open);
		return ret ? ret : -RP_ERR_NOMEM;
	}
	json_array_append_new(events,
		json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "name", "thread_name",
			  "ph", "M", "pid", (json_int_t)t->pid, "tid",
			  (json_int_t)tid, "args", "name",
			  tid == t->pid ? "main thread" : "thread"));
	for (i = 0; i < n; i++) {
		int level = calls[i].level;
		bool deeper = i && level > calls[i - 1].level;
		bool back = i && level < calls[i - 1].level;

		/* Close what ends here: deeper ones on a return, and the
		 * one at this level too when moving sideways.
		 */
		while (top >= 0 &&
		       (calls[open[top]].level > level ||
			(!deeper && !back && calls[open[top]].level == level))) {
			slice(s, c, events, t, &calls[open[top]],
			      calls[i].first - 1);
			top--;
		}
		if (back && top >= 0 && calls[open[top]].level == level)
			continue;	/* the caller's invocation goes on */
		open[++top] = i;
	}
	while (n && top >= 0)
		slice(s, c, events, t, &calls[open[top--]], calls[n - 1].last);
	perfetto_events(s, c, events, t);
	rp_cursor_free(c);
	free(open);
	free(calls);
	return 0;
}

int rp_export(struct rp_session *s, enum rp_export_format fmt, uint32_t tid,
	      FILE *f)
{
	json_t *events = NULL;
	size_t i;
	int ret = 0;

	if (fmt > RP_EXPORT_PERFETTO)
		return -RP_ERR_INVAL;
	if (tid && !rp_find_thread(s, tid))
		return rp_fail(s, RP_ERR_NOTHREAD, "thread %u", tid);
	if (fmt == RP_EXPORT_CSV)
		fprintf(f, "tid,n,ip,tsc,function,offset,file,line\n");
	if (fmt == RP_EXPORT_PERFETTO) {
		events = json_array();
		if (!events)
			return -RP_ERR_NOMEM;
	}
	for (i = 0; i < s->nthreads && !ret; i++) {
		uint32_t t = s->threads[i].tid;

		if (tid && t != tid)
			continue;
		ret = events ? export_perfetto(s, t, events) :
		      export_insns(s, t, f, fmt == RP_EXPORT_CSV);
	}
	if (events) {
		json_t *root = json_pack("{s:o, s:s}", "traceEvents", events,
					 "displayTimeUnit", "ns");

		if (!ret && (!root || json_dumpf(root, f, JSON_COMPACT)))
			ret = root ? -RP_ERR_IO : -RP_ERR_NOMEM;
		json_decref(root);
	}
	if (!ret && (fflush(f) || ferror(f)))
		ret = -RP_ERR_IO;
	return ret;
}
