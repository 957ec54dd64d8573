#include "openloop/sim/event_writer.hpp"

#include "openloop/base/random.hpp"
#include "openloop/load/tokens.hpp"

#include <algorithm>
#include <charconv>

namespace openloop {

namespace {

void append_words(std::string& out, std::uint64_t& state, int k) {
    for (int i = 0; i < k; ++i) {
        state = mix64(state);
        out.push_back(' ');
        out.append(vocab_word(state >> 58));
    }
}

}  // namespace

void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

void event_writer::usage(std::string& out, int sent) const {
    const std::int64_t completion = absurd_completion > 0 && sent > 1 ? absurd_completion : sent;
    out.append(R"("usage":{"prompt_tokens":)");
    append_int(out, prompt_tokens);
    out.append(R"(,"total_tokens":)");
    append_int(out, prompt_tokens + completion);
    out.append(R"(,"completion_tokens":)");
    append_int(out, completion);
    if (cached_tokens > 0) {
        out.append(R"(,"prompt_tokens_details":{"cached_tokens":)");
        append_int(out, cached_tokens);
        out.push_back('}');
    }
    // The older shape's quirk: no details, a client attributes tokens by phase itself.
    if (thinks && shape == reasoning_shape::reasoning) {
        out.append(R"(,"completion_tokens_details":{"reasoning_tokens":)");
        append_int(out, std::min(sent, reasoning));
        out.push_back('}');
    }
    out.push_back('}');
}

void event_writer::role(std::string& out) const {
    out.append("data: ").append(head);
    out.append(R"([{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}])");
    if (continuous_usage) {
        out.push_back(',');
        usage(out, 0);
    }
    out.append("}\n\n");
}

void event_writer::words(std::string& out, int k) { append_words(out, word_state, k); }

void event_writer::thinking_words(std::string& out, int k) { append_words(out, reasoning_state, k); }

std::string generated_words(std::uint64_t state, int k) {
    std::string out;
    append_words(out, state, k);
    return out;
}

void event_writer::open_delta(std::string& out) const {
    out.append("data: ").append(head).append(R"([{"index":0,"delta":{)");
}

void event_writer::close_choice(std::string& out, int completion, std::string_view finish_reason, bool with_usage) const {
    out.append(R"(,"logprobs":null,"finish_reason":)");
    if (finish_reason.empty()) {
        out.append("null");
    } else {
        out.push_back('"');
        out.append(finish_reason).push_back('"');
    }
    if (!chat) out.append(R"(,"stop_reason":null)");
    out.append("}]");
    if (continuous_usage || with_usage) {
        out.push_back(',');
        usage(out, completion);
    }
    out.append("}\n\n");
}

void event_writer::content(std::string& out, int k, int completion, std::string_view finish_reason, bool with_usage) {
    if (chat) {
        open_delta(out);
        out.append(R"("content":")");
    } else {
        out.append("data: ").append(head).append(R"([{"index":0,"text":")");
    }
    words(out, k);
    out.push_back('"');
    if (chat && thinks && shape == reasoning_shape::reasoning_content) out.append(R"(,"reasoning_content":null)");
    if (chat) out.push_back('}');
    close_choice(out, completion, finish_reason, with_usage);
}

void event_writer::thinking_text(std::string& out, int before, int k) {
    const bool tags = shape == reasoning_shape::think_tags;
    if (tags && before == 0) out.append("<think>");
    thinking_words(out, k);
    if (tags && answers && before + k == reasoning) out.append("</think>");
}

bool event_writer::step(std::string& out, int k, int before, std::string_view finish_reason, bool with_usage) {
    const int think = std::clamp(reasoning - before, 0, k);
    const int answer = k - think;
    const int after = before + k;
    const bool tags = shape == reasoning_shape::think_tags;
    // The field the thinking goes in; between tags it is the content, as the answer is.
    const char* thinking_field = tags ? R"("content":")"
                                 : shape == reasoning_shape::reasoning ? R"("reasoning":")"
                                                                       : R"("reasoning_content":")";
    if (think > 0 && answer > 0 && (shape != reasoning_shape::reasoning_content || older_shape_shares) && !tool_call) {
        // vLLM sends the step that ends the thinking as one chunk with both.
        open_delta(out);
        out.append(thinking_field);
        thinking_text(out, before, think);
        if (!tags) out.append(R"(","content":")");
        words(out, answer);
        out.append(R"("})");
        close_choice(out, after, finish_reason, with_usage);
        return true;
    }
    if (think > 0) {
        open_delta(out);
        if (shape == reasoning_shape::reasoning_content) out.append(R"("content":null,)");
        out.append(thinking_field);
        thinking_text(out, before, think);
        out.append(R"("})");
        const bool last = answer == 0;
        close_choice(out, before + think, last ? finish_reason : std::string_view{}, last && with_usage);
    }
    if (answer == 0) return false;
    if (!tool_call) {
        content(out, answer, after, finish_reason, with_usage);
        return true;
    }
    call_pieces(out, before + think - reasoning, answer, before + think, finish_reason, with_usage);
    return true;
}

void event_writer::call_pieces(std::string& out, int from, int k, int before, std::string_view finish_reason,
                               bool with_usage) {
    for (const int end = from + k; from < end;) {
        const auto it = std::find_if(calls.begin(), calls.end(), [&](const streamed_call& c) { return from < c.first + c.tokens; });
        if (it == calls.end()) return;
        streamed_call& c = *it;
        const int index = static_cast<int>(it - calls.begin());
        if (from == c.first) {  // the call's id and name open it, with no tokens of their own
            open_delta(out);
            out.append(R"("tool_calls":[{"index":)");
            append_int(out, index);
            out.append(R"(,"id":")").append(c.id);
            out.append(R"(","type":"function","function":{"name":)").append(c.name_json);
            out.append(R"(,"arguments":""}}]})");
            close_choice(out, before, {}, false);
        }
        const int take = std::min(end, c.first + c.tokens) - from;
        open_delta(out);
        out.append(R"("tool_calls":[{"index":)");
        append_int(out, index);
        out.append(R"(,"function":{"arguments":")");
        append_arguments(out, c.word_state, from - c.first, take, c.tokens, true);
        out.append(R"("}}]})");
        from += take;
        before += take;
        const bool last = from == end;
        close_choice(out, before, last ? finish_reason : std::string_view{}, last && with_usage);
    }
}

void append_arguments(std::string& out, std::uint64_t& state, int from, int k, int of, bool escaped) {
    for (int t = from; t < from + k; ++t) {
        if (t == 0) {
            out.append(escaped ? R"({\"query\":\")" : R"({"query":")");
        } else {
            append_words(out, state, 1);
        }
        if (t == of - 1) out.append(escaped ? R"(\"})" : R"("})");
    }
}

std::string tool_arguments(std::uint64_t state, int k, int of) {
    std::string out;
    append_arguments(out, state, 0, k, of, false);
    return out;
}

void event_writer::empty_choices(std::string& out) const { out.append("data: ").append(head).append("[]}\n\n"); }

void event_writer::final_usage(std::string& out, int completion) const {
    out.append("data: ").append(head).append("[],");
    usage(out, completion);
    out.append("}\n\n");
}

void event_writer::malformed(std::string& out) const {
    out.append("data: ").append(head).append(R"([{"index":0,"delta":{"content":" tru)").append("\n\n");
}

}  // namespace openloop
