#include "openloop/sim/event_writer.hpp"

#include "openloop/load/tokens.hpp"

#include <charconv>

namespace openloop {

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

void event_writer::words(std::string& out, int k) {
    for (int i = 0; i < k; ++i) {
        word_state = mix64(word_state);
        out.push_back(' ');
        out.append(vocab_word(word_state >> 58));
    }
}

std::string generated_words(std::uint64_t state, int k) {
    event_writer w;
    w.word_state = state;
    std::string out;
    w.words(out, k);
    return out;
}

void event_writer::content(std::string& out, int k, int completion, std::string_view finish_reason, bool with_usage) {
    out.append("data: ").append(head);
    out.append(chat ? R"([{"index":0,"delta":{"content":")" : R"([{"index":0,"text":")");
    words(out, k);
    out.append(chat ? R"("},"logprobs":null,"finish_reason":)" : R"(","logprobs":null,"finish_reason":)");
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
