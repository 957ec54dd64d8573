#include "openloop/results/rebuild.hpp"

#include "openloop/measure/session_log.hpp"
#include "openloop/results/jsonl_lines.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace openloop {

namespace json = boost::json;

namespace {

// A field in ns, or -1 when absent or null.
std::int64_t ns(const json::object& o, const char* key) {
    const json::value* v = o.if_contains(key);
    if (v == nullptr) return -1;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
    return -1;
}

std::int64_t integer(const json::object& o, const char* key, std::int64_t fallback = 0) {
    const std::int64_t v = ns(o, key);
    return v < 0 ? fallback : v;
}

// A flag written only when true.
bool flag(const json::object& o, const char* key) {
    const json::value* v = o.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

int class_of(std::string_view name) {
    for (int c = 0; c < error_class_count; ++c)
        if (error_class_name(static_cast<error_class>(c)) == name) return c;
    return static_cast<int>(error_class::io);
}

void count_status(run_stats& s, int status) {
    auto& counts = s.http_status_counts;
    const auto it = std::lower_bound(counts.begin(), counts.end(), status,
                                     [](const auto& entry, int st) { return entry.first < st; });
    if (it != counts.end() && it->first == status) {
        ++it->second;
    } else {
        counts.insert(it, {status, 1});
    }
}

// A thinking model's clocks and split, as the run counted them. Lines without them
// (a model that did not think, an older log) answered from their first token.
void add_reasoning(run_stats& s, const json::object& o, std::int64_t intended, std::int64_t first, std::int64_t output,
                   request_sample* sample) {
    const std::int64_t first_answer = o.contains("first_answer_ns") ? ns(o, "first_answer_ns") : first;
    if (first_answer >= 0) {
        s.ttfa.record(first_answer - intended);
        if (sample) sample->ttfa = first_answer - intended;
    } else if (first >= 0 && flag(o, "ended_thinking")) {
        // It streamed and never answered: infinitely late, as the run counted it (record_ttfa).
        s.ttfa.record_infinite();
        if (sample) sample->ttfa = histogram::infinite;
    }
    if (const json::value* r = o.if_contains("reasoning_ms"); r && r->is_number())
        s.reasoning_time.record(std::llround(r->to_number<double>() * 1e6));
    reasoning_stats& t = s.reasoning;
    const std::int64_t reasoning = integer(o, "reasoning_tokens");
    t.reasoning_tokens += reasoning;
    t.answer_tokens += o.contains("answer_tokens") ? integer(o, "answer_tokens") : output;
    if (reasoning > 0) ++t.thinking;
    const json::value* source = o.if_contains("reasoning_source");
    const std::string_view from = source && source->is_string() ? std::string_view(source->get_string()) : "";
    if (from == "usage") ++t.from_usage;
    if (from == "usage_deltas") ++t.from_deltas;
    if (from == "usage_deltas_split") ++t.from_split;
    if (from == "chunks") ++t.estimated;
    if (flag(o, "ended_thinking")) ++t.ended_thinking;
    if (flag(o, "tool_call")) ++t.tool_calls;
    if (flag(o, "think_tags")) ++t.think_tags;
}

std::string_view text(const json::object& o, const char* key) {
    const json::value* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// A mixed run's line names its model: its statistics, in the order the models first came.
model_stats* model_of(run_stats& s, const json::object& o) {
    const std::string_view name = text(o, "model");
    if (name.empty()) return nullptr;
    for (model_stats& m : s.by_model)
        if (m.name == name) return &m;
    return &s.by_model.emplace_back(std::string(name), s.by_model.size());
}

// What a completed request adds to its model's and the media breakdowns, as the recorder adds it.
// ITL is not kept by the log, so a model's ITL stays empty.
void add_breakdowns(run_stats& s, const json::object& o, model_stats* model, std::int64_t ttft, std::int64_t tpot,
                    std::int64_t e2e, std::int64_t ttfa, std::int64_t input, std::int64_t output, bool good,
                    std::vector<std::int64_t>& text_only_ttft) {
    if (model != nullptr) {
        ++model->completed;
        model->input_tokens += input;
        model->output_tokens += output;
        if (ttft >= 0) model->ttft.record(ttft);
        if (tpot >= 0) model->tpot.record(tpot);
        if (e2e >= 0) model->e2e.record(e2e);
        if (ttfa == histogram::infinite)
            model->ttfa.record_infinite();
        else if (ttfa >= 0)
            model->ttfa.record(ttfa);
        if (good) ++model->good;
    }
    if (!o.contains("body_bytes")) {
        // A text-only request counts in the media run's 0-image row; until a media line says
        // the run had media, its TTFT waits here.
        if (s.media) {
            s.media->completed(media_outcome{0, {}, ttft, input, {}});
        } else {
            text_only_ttft.push_back(ttft);
        }
        return;
    }
    media_outcome m{static_cast<std::int32_t>(integer(o, "images")), text(o, "bucket"), ttft, input, {}};
    if (const json::value* t = o.if_contains("media_tokens"); t && t->is_int64()) m.tokens = {true, t->get_int64()};
    s.media->completed(m);
}

// turn: a sessions run's turn from 1, else -1.
void add(run_stats& s, const json::object& o, std::vector<request_sample>* samples, std::int64_t turn,
         std::vector<std::int64_t>& text_only_ttft) {
    const std::int64_t intended = ns(o, "intended_ns"), sent = ns(o, "sent_ns"), headers = ns(o, "headers_ns");
    const std::int64_t first = ns(o, "first_token_ns"), last = ns(o, "last_token_ns"), end = ns(o, "end_ns");
    const json::value* status_v = o.if_contains("status");
    const std::string_view status = status_v && status_v->is_string() ? std::string_view(status_v->get_string()) : "";
    ++s.started;
    if (s.started == 1 || intended < s.first_intended_ns) s.first_intended_ns = intended;
    model_stats* model = model_of(s, o);
    if (model != nullptr) ++model->started;
    if (o.contains("body_bytes")) {
        if (!s.media) {
            s.media.emplace();
            for (const std::int64_t t : text_only_ttft) s.media->completed(media_outcome{0, {}, t, 0, {}});
            text_only_ttft.clear();
        }
        s.media->sent(integer(o, "body_bytes"), static_cast<std::int32_t>(integer(o, "images")),
                      static_cast<std::int32_t>(integer(o, "audios")));
    }
    const std::int64_t released = ns(o, "released_ns");
    if (released >= 0) {
        ++s.queued;
        s.queue.record(released - intended);
    }
    if (sent >= 0) s.lag.record(sent - (released >= 0 ? released : intended));
    if (status == "unfinished") {
        ++s.unfinished;
        return;
    }
    s.last_end_ns = std::max(s.last_end_ns, end);
    // Its figures, kept for the samples and the per-model and media breakdowns.
    request_sample own;
    request_sample* sample = samples ? &samples->emplace_back() : &own;
    if (model != nullptr) sample->model = static_cast<int>(model - s.by_model.data());
    if (status != "ok") {
        ++s.failed;
        if (model != nullptr) ++model->failed;
        if (turn >= 1) s.sessions.failed_turn(static_cast<std::uint64_t>(turn - 1));
        const json::value* e = o.if_contains("error");
        ++s.failed_by_class[static_cast<std::size_t>(class_of(e && e->is_string() ? std::string_view(e->get_string()) : ""))];
        const std::int64_t http = integer(o, "http_status");
        if (http >= 400) count_status(s, static_cast<int>(http));
        return;
    }
    ++s.completed;
    const json::value* good_v = o.if_contains("good");
    const bool good = !(good_v && good_v->is_bool() && !good_v->get_bool());
    if (good) ++s.good;
    if (sample) sample->ok = true;
    const std::int64_t input = integer(o, "input_tokens"), output = integer(o, "output_tokens");
    const std::int64_t max_tokens = integer(o, "max_tokens");
    std::int64_t prompt = ns(o, "prompt_tokens");
    s.total_input_tokens += input;
    s.total_output_tokens += output;
    s.output_requested_tokens += max_tokens;
    if (output == max_tokens) ++s.output_at_max;
    const json::value* source = o.if_contains("output_tokens_source");
    const bool from_usage = source && source->is_string() && source->get_string() == "usage";
    const bool uncounted = source && source->is_string() && source->get_string() == "none";
    ++(from_usage ? s.output_from_usage : uncounted ? s.output_uncounted : s.output_estimated);
    // A request with media is left out of the input-length check, as in the run (its usage
    // counts text and media together).
    if (o.contains("images")) prompt = -1;
    // The length section of the fidelity report; a replay's other sections need the trace.
    s.fidelity.completed({static_cast<std::uint64_t>(std::max<std::int64_t>(0, integer(o, "index"))), input, prompt,
                          max_tokens, from_usage ? output : -1, -1, -1});
    if (const json::value* bad = o.if_contains("bad_usage"); bad && bad->is_bool() && bad->get_bool()) ++s.bad_usage;
    if (prompt >= 0) {
        s.server_prompt_tokens += prompt;
        ++s.prompt_checked;
        s.prompt_intended_tokens += input;
        if (prompt == input) ++s.prompt_exact;
    }
    if (const std::int64_t cached = ns(o, "cached_tokens"); cached >= 0) s.cached_prompt_tokens += cached;
    latency_set& bucket = s.by_input[static_cast<std::size_t>(input_bucket(static_cast<int>(input)))];
    ++bucket.completed;
    if (first >= 0 && last >= 0) {
        s.ttft.record(first - intended);
        s.e2e.record(last - intended);
        bucket.ttft.record(first - intended);
        bucket.e2e.record(last - intended);
        if (sent >= 0) {
            s.ttft_from_send.record(first - sent);
            s.e2e_from_send.record(last - sent);
        }
        // TPOT as the run computed it: whole nanoseconds over the output tokens after the first.
        if (output > 1) {
            const std::int64_t tpot = (last - first) / (output - 1);
            s.tpot.record(tpot);
            bucket.tpot.record(tpot);
            if (sample) sample->tpot = tpot;
        }
        if (sample) {
            sample->ttft = first - intended;
            sample->e2e = last - intended;
        }
    }
    // One JSON body (--no-stream, embeddings): E2E ends with it, and there is no TTFT.
    if (const json::value* st = o.if_contains("streamed"); st && st->is_bool() && !st->get_bool() && end >= 0) {
        s.e2e.record(end - intended);
        bucket.e2e.record(end - intended);
        if (sent >= 0) s.e2e_from_send.record(end - sent);
        if (sample) sample->e2e = end - intended;
    }
    if (sample) sample->output_tokens = output;
    add_reasoning(s, o, intended, first >= 0 && last >= 0 ? first : -1, output, sample);
    add_breakdowns(s, o, model, sample->ttft, sample->tpot, sample->e2e, sample->ttfa, input, output, good, text_only_ttft);
    if (turn >= 1) {
        const bool streamed = first >= 0 && last >= 0;
        s.sessions.completed_turn(static_cast<std::uint64_t>(turn - 1), streamed ? first - intended : -1,
                                  streamed ? last - intended : end >= 0 ? end - intended : -1, prompt,
                                  ns(o, "cached_tokens"), ns(o, "output_tokens"), flag(o, "tool_call"));
    }
    if (headers >= 0) s.ttfb.record(headers - intended);
    if (const json::value* c = o.if_contains("connect_ms"); c && c->is_number())
        s.connect.record(std::llround(c->to_number<double>() * 1e6));
}

// Token counts a run can have written: the run keeps them in 32 bits, and
// larger ones would overflow the totals of an edited or corrupt log.
bool plausible(const json::object& o) {
    for (const char* key : {"input_tokens", "output_tokens", "max_tokens", "prompt_tokens", "cached_tokens",
                            "reasoning_tokens", "answer_tokens"})
        if (ns(o, key) > std::numeric_limits<std::int32_t>::max()) return false;
    return true;
}

// As the reporter keeps them under steady_throughput: the send window's completions, and the
// in-flight count every 100 ms from the first request (each in flight from its intended
// time to its end; one without an end, to the last sample).
void add_stage_view(run_stats& s, std::vector<std::int64_t> starts, std::vector<std::int64_t> ends,
                    const std::vector<std::int64_t>& completions, std::int64_t last_intended) {
    if (s.started > 1 && last_intended > s.first_intended_ns) {
        s.steady_window_s = static_cast<double>(last_intended - s.first_intended_ns) / 1e9;
        s.steady_completed = static_cast<std::uint64_t>(std::count_if(
            completions.begin(), completions.end(),
            [&](std::int64_t t) { return t >= s.first_intended_ns && t <= last_intended; }));
    }
    if (starts.empty()) return;
    std::sort(starts.begin(), starts.end());
    std::sort(ends.begin(), ends.end());
    // 100 ms as the reporter samples; coarser past 100,000 samples (2.8 h), since a log's times
    // are anyone's and one wild end must not make the series endless.
    constexpr std::int64_t max_samples = 100'000;
    const std::int64_t first = starts.front();
    const std::int64_t span = std::max(ends.empty() ? starts.back() : ends.back(), starts.back()) - first;
    const std::int64_t step = std::max<std::int64_t>(100'000'000, span / max_samples + 1);
    s.inflight_step_ns = step;
    s.inflight_origin_ns = first;
    std::size_t begun = 0, ended = 0;
    for (std::int64_t k = 0; k <= span / step; ++k) {
        const std::int64_t t = first + k * step;
        while (begun < starts.size() && starts[begun] <= t) ++begun;
        while (ended < ends.size() && ends[ended] <= t) ++ended;
        s.inflight_samples.push_back(static_cast<std::uint32_t>(begun - std::min(begun, ended)));
    }
}

}  // namespace

rebuilt_stats rebuild_stats(std::string_view text, std::vector<request_sample>* samples, bool stage_view) {
    rebuilt_stats r;
    // The stage view: every request's span (warm-up ones too: the server's queue holds them),
    // completions' ends, and the measured sends' last intended time.
    std::vector<std::int64_t> starts, ends, completions;
    std::int64_t last_intended = -1;
    std::vector<std::int64_t> text_only_ttft;  // until a media line: the 0-image row's TTFTs
    const jsonl_tally tally = read_jsonl(text, [&](const json::object& o) {
        if (ns(o, "intended_ns") < 0 || !o.contains("status") || !plausible(o)) return false;
        ++r.lines;
        if (stage_view) {
            const std::int64_t intended = ns(o, "intended_ns"), end = ns(o, "end_ns");
            starts.push_back(intended);
            if (end >= 0) ends.push_back(end);
            const json::value* status = o.if_contains("status");
            if (end >= 0 && status && status->is_string() && status->get_string() == "ok") completions.push_back(end);
            const json::value* w = o.if_contains("warmup");
            if (!(w && w->is_bool() && w->get_bool())) last_intended = std::max(last_intended, intended);
        }
        if (const json::value* w = o.if_contains("warmup"); w && w->is_bool() && w->get_bool()) {
            ++r.stats.warmup_started;
        } else {
            // A sessions run's line names its turn (from 1), the row it counts in: with the
            // widest stride, request turn - 1 is in that row.
            const std::int64_t turn = o.contains("session") ? ns(o, "turn") : -1;
            if (turn >= 1 && r.stats.sessions.stride == 0) r.stats.sessions.stride = std::numeric_limits<int>::max();
            add(r.stats, o, samples, turn, text_only_ttft);
        }
        return true;
    });
    r.bad_lines = tally.bad_lines;
    r.first_bad_line = tally.first_bad_line;
    if (stage_view) add_stage_view(r.stats, std::move(starts), std::move(ends), completions, last_intended);
    return r;
}

std::size_t rebuild_sessions(std::string_view text, session_stats& into) {
    std::size_t lines = 0;
    read_jsonl(text, [&](const json::object& o) {
        const json::value* outcome = o.if_contains("outcome");
        if (!outcome || !outcome->is_string() || ns(o, "end_ns") < 0 || ns(o, "first_intended_ns") < 0) return false;
        ++lines;
        const json::value* w = o.if_contains("warmup");
        if (w && w->is_bool() && w->get_bool()) return true;
        if (into.stride == 0) into.stride = std::numeric_limits<int>::max();
        into.session_ended(ns(o, "end_ns"), ns(o, "first_intended_ns"), integer(o, "turns_completed"), integer(o, "turns"),
                           session_flags_of(outcome->get_string(), false));
        return true;
    });
    return lines;
}

}  // namespace openloop
