#include "openloop/measure/request_metrics.hpp"

#include <algorithm>

namespace openloop {

void request_timeline::add_chunk(std::int64_t t_ns, std::int64_t tokens, bool reasoning, std::int64_t shared_reasoning_chars,
                                 std::int64_t chars) {
    const bool shared = !reasoning && shared_reasoning_chars > 0;
    if (reasoning || shared) {
        if (first_reasoning < 0) first_reasoning = t_ns;
        last_reasoning = t_ns;
        const std::int64_t thought = reasoning ? (tokens >= 1 ? tokens : -1)
                                               : shared_reasoning_tokens(tokens, chars, shared_reasoning_chars);
        if (thought >= 0)
            reasoning_delta_tokens += thought;
        else
            reasoning_deltas_known = false;
    }
    if (reasoning) {
        ++reasoning_chunks;
    } else if (first_answer < 0) {
        first_answer = t_ns;
    }
    if (shared) {
        ++shared_chunks;
        if (tokens != 2) shared_guessed = true;
    }
    if (first_chunk < 0) {
        first_chunk = t_ns;
    } else {
        const std::int64_t gap = t_ns - last_chunk;
        gaps.push_back({gap, tokens, reasoning});
        max_itl = std::max(max_itl, tokens >= 1 ? gap / tokens : gap);
        max_gap = std::max(max_gap, gap);
    }
    last_chunk = t_ns;
    ++chunks;
}

std::int64_t usage_margin(std::int64_t max_tokens) {
    return std::max<std::int64_t>(16, max_tokens / 10);
}

std::string_view reasoning_source_name(reasoning_source s) {
    switch (s) {
    case reasoning_source::usage: return "usage";
    case reasoning_source::usage_deltas: return "usage_deltas";
    case reasoning_source::usage_deltas_split: return "usage_deltas_split";
    case reasoning_source::chunks: return "chunks";
    case reasoning_source::none: break;
    }
    return "none";
}

namespace {

// The thinking's share of the output: the server's own figure first, then what
// its continuous usage said of the thinking chunks, then those chunks counted.
void measure_reasoning(const request_timeline& r, const stream_usage& usage, request_metrics& m) {
    // A usage that says 0 of a request that streamed no thinking says nothing thought.
    const bool streamed_thinking = r.reasoning_chunks > 0 || r.shared_chunks > 0;
    if (usage.reasoning_tokens >= 0 && !m.bad_usage && (usage.reasoning_tokens > 0 || streamed_thinking)) {
        m.reasoning_tokens = usage.reasoning_tokens;
        m.reasoning_from = reasoning_source::usage;
    } else if (streamed_thinking && r.reasoning_deltas_known && !m.bad_usage) {
        m.reasoning_tokens = r.reasoning_delta_tokens;
        m.reasoning_from = r.shared_guessed ? reasoning_source::usage_deltas_split : reasoning_source::usage_deltas;
    } else if (streamed_thinking) {
        m.reasoning_tokens = r.reasoning_chunks + r.shared_chunks;
        m.reasoning_from = reasoning_source::chunks;
    }
    m.reasoning_tokens = std::min(m.reasoning_tokens, m.output_tokens);
    m.answer_tokens = m.output_tokens - m.reasoning_tokens;
    if (r.streamed) {
        if (r.first_answer >= 0) m.ttfa = r.first_answer - r.intended;
        if (r.first_reasoning >= 0) m.reasoning = (r.first_answer >= 0 ? r.first_answer : r.last_reasoning) - r.first_reasoning;
        m.ended_thinking = r.reasoning_chunks > 0 && r.first_answer < 0;
        m.never_answered = m.ended_thinking;
    } else {
        m.ended_thinking = m.reasoning_tokens > 0 && m.answer_tokens == 0 && !r.tool_call;
    }
}

}  // namespace

request_metrics measure_request(const request_timeline& r, const stream_usage& usage) {
    request_metrics m;
    m.bad_usage = usage.bad || (r.max_tokens > 0 && usage.completion_tokens > r.max_tokens + usage_margin(r.max_tokens));
    m.output_from_usage = usage.completion_tokens >= 0 && !m.bad_usage;
    m.output_tokens = m.output_from_usage ? usage.completion_tokens : r.chunks;
    measure_reasoning(r, usage, m);
    if (!r.streamed) {
        // Nothing to count chunks of: without usage the output is unknown, not 0.
        m.output_counted = m.output_from_usage;
        if (r.answered >= 0) {
            m.e2e_end = r.answered;
            m.e2e = r.answered - r.intended;
        }
        return m;
    }
    if (r.first_chunk < 0) {
        return m;
    }
    m.ttft = r.first_chunk - r.intended;
    m.e2e_end = r.last_chunk;
    m.e2e = r.last_chunk - r.intended;
    if (m.output_tokens > 1) {
        m.tpot = (m.e2e - m.ttft) / (m.output_tokens - 1);
    }
    return m;
}

bool meets(const goodput_slo& slo, const request_timeline& r, const request_metrics& m) {
    const auto over = [](std::int64_t ns, double limit_ms) {
        return limit_ms >= 0 && static_cast<double>(ns) / 1e6 > limit_ms;
    };
    if (slo.ttft_ms >= 0 && (m.ttft < 0 || over(m.ttft, slo.ttft_ms))) {
        return false;
    }
    if (slo.ttfa_ms >= 0 && (m.ttfa < 0 || over(m.ttfa, slo.ttfa_ms))) {
        return false;
    }
    if (slo.e2e_ms >= 0 && (m.e2e < 0 || over(m.e2e, slo.e2e_ms))) {
        return false;
    }
    if (m.tpot >= 0 && over(m.tpot, slo.tpot_ms)) {
        return false;
    }
    return !over(m.bad_usage ? r.max_gap : r.max_itl, slo.itl_ms);
}

void record_ttfa(histogram& h, const request_metrics& m) {
    if (m.ttfa >= 0)
        h.record(m.ttfa);
    else if (m.never_answered)
        h.record_infinite();
}

itl_samples record_itl(histogram& itl, const request_timeline& r, bool bad_usage, itl_phase phase) {
    itl_samples n;
    for (const chunk_gap& g : r.gaps) {
        if (phase != itl_phase::all && g.reasoning != (phase == itl_phase::reasoning)) continue;
        if (g.tokens >= 1 && !bad_usage) {
            const auto tokens = static_cast<std::uint64_t>(g.tokens);
            itl.record(g.ns / g.tokens, tokens);
            n.token_samples += tokens;
        } else {
            itl.record(g.ns);
            ++n.chunk_samples;
        }
    }
    return n;
}

namespace {

void record_reasoning(run_stats& stats, const request_timeline& r, const request_metrics& m) {
    reasoning_stats& s = stats.reasoning;
    record_ttfa(stats.ttfa, m);
    if (m.reasoning >= 0) stats.reasoning_time.record(m.reasoning);
    if (m.reasoning_tokens > 0) ++s.thinking;
    if (m.ended_thinking) ++s.ended_thinking;
    if (r.tool_call) ++s.tool_calls;
    if (r.think_tags) ++s.think_tags;
    s.reasoning_tokens += m.reasoning_tokens;
    s.answer_tokens += m.answer_tokens;
    switch (m.reasoning_from) {
    case reasoning_source::usage: ++s.from_usage; break;
    case reasoning_source::usage_deltas: ++s.from_deltas; break;
    case reasoning_source::usage_deltas_split: ++s.from_split; break;
    case reasoning_source::chunks: ++s.estimated; break;
    case reasoning_source::none: break;
    }
    if (r.reasoning_chunks > 0) record_itl(stats.itl_reasoning, r, m.bad_usage, itl_phase::reasoning);
    record_itl(stats.itl_answer, r, m.bad_usage, itl_phase::answer);
}

}  // namespace

void record_completed(run_stats& stats, const request_timeline& r, const request_metrics& m,
                      const stream_usage& usage, bool good) {
    ++stats.completed;
    stats.total_input_tokens += r.input_tokens;
    stats.total_output_tokens += m.output_tokens;
    // A request with images or audio is left out of the input-length check: its usage counts
    // the text and the media together (media_stats takes the difference as the media's).
    if (usage.prompt_tokens >= 0 && !r.has_media()) {
        stats.server_prompt_tokens += usage.prompt_tokens;
        ++stats.prompt_checked;
        stats.prompt_intended_tokens += r.input_tokens;
        if (usage.prompt_tokens == r.input_tokens) ++stats.prompt_exact;
    }
    stats.output_requested_tokens += r.max_tokens;
    if (m.output_tokens == r.max_tokens) ++stats.output_at_max;
    if (usage.cached_tokens >= 0) {
        stats.cached_prompt_tokens += usage.cached_tokens;
    }
    ++(m.output_from_usage ? stats.output_from_usage : m.output_counted ? stats.output_estimated : stats.output_uncounted);
    if (m.bad_usage) ++stats.bad_usage;

    latency_set& bucket = stats.by_input[static_cast<std::size_t>(input_bucket(r.input_tokens))];
    ++bucket.completed;
    if (m.ttft >= 0) {
        stats.ttft.record(m.ttft);
        bucket.ttft.record(m.ttft);
        if (r.sent >= 0) stats.ttft_from_send.record(r.first_chunk - r.sent);
    }
    if (m.e2e >= 0) {
        stats.e2e.record(m.e2e);
        bucket.e2e.record(m.e2e);
        if (r.sent >= 0) stats.e2e_from_send.record(m.e2e_end - r.sent);
    }
    if (m.tpot >= 0) {
        stats.tpot.record(m.tpot);
        bucket.tpot.record(m.tpot);
    }
    record_reasoning(stats, r, m);
    for (const chunk_gap& g : r.gaps) stats.icl.record(g.ns);
    const itl_samples itl = record_itl(stats.itl, r, m.bad_usage);
    stats.itl_token_samples += itl.token_samples;
    stats.itl_chunk_samples += itl.chunk_samples;
    if (r.headers >= 0) {
        stats.ttfb.record(r.headers - r.intended);
    }
    if (r.connect >= 0) {
        stats.connect.record(r.connect);
    }
    if (good) {
        ++stats.good;
    }
}

}  // namespace openloop
