#include "openloop/sim/responses_writer.hpp"

#include <algorithm>

namespace openloop {

// Each event names its type twice, as vLLM sends it: on the SSE event line
// and in the data, followed by its sequence number.
void responses_writer::event(std::string& out, std::string_view type) {
    out.append("event: ").append(type).append("\ndata: {\"type\":\"").append(type).append("\",\"sequence_number\":");
    append_int(out, sequence++);
}

// The message follows the reasoning item when there is one.
void responses_writer::part_of_item(std::string& out) const {
    out.append(R"(,"item_id":")").append(item_id).append(reasoning > 0 ? R"(","output_index":1,"content_index":0)"
                                                                        : R"(","output_index":0,"content_index":0)");
}

void responses_writer::part_of_reasoning(std::string& out) const {
    out.append(R"(,"item_id":")").append(reasoning_id).append(R"(","output_index":0,"content_index":0)");
}

void responses_writer::message(std::string& out, std::string_view status, const std::string_view* text) const {
    out.append(R"({"id":")").append(item_id).append(R"(","type":"message","status":")").append(status);
    out.append(R"(","role":"assistant","content":[)");
    if (text) out.append(R"({"type":"output_text","text":")").append(*text).append(R"(","annotations":[]})");
    out.append("]}");
}

void responses_writer::reasoning_item(std::string& out, std::string_view status, bool with_text) const {
    out.append(R"({"id":")").append(reasoning_id).append(R"(","type":"reasoning","summary":[],"content":[)");
    if (with_text) out.append(R"({"type":"reasoning_text","text":")").append(thinking).append(R"("})");
    out.append(R"(],"status":")").append(status).append(R"("})");
}

// The response object; with text, finished: its output (the reasoning item,
// the message unless the answer ended while thinking) and usage.
void responses_writer::response(std::string& out, std::string_view status, const std::string_view* text,
                                int completion) const {
    out.append(R"({"id":")").append(id).append(R"(","object":"response","created_at":)");
    append_int(out, created_unix);
    out.append(R"(,"status":")").append(status).append(R"(","error":null,"incomplete_details":)");
    out.append(status == "incomplete" ? R"({"reason":"max_output_tokens"})" : "null");
    out.append(R"(,"model":)").append(model_json).append(R"(,"output":[)");
    if (text && reasoning > 0) reasoning_item(out, "completed", true);
    if (text && reasoning > 0 && answered(completion)) out.push_back(',');
    if (text && answered(completion)) message(out, "completed", text);
    out.append(R"(],"usage":)");
    if (!text) {
        out.append("null}");
        return;
    }
    out.append(R"({"input_tokens":)");
    append_int(out, prompt_tokens);
    out.append(R"(,"input_tokens_details":{"cached_tokens":)");
    append_int(out, cached_tokens);
    out.append(R"(},"output_tokens":)");
    append_int(out, completion);
    out.append(R"(,"output_tokens_details":{"reasoning_tokens":)");
    append_int(out, std::min(completion, reasoning));
    out.append(R"(},"total_tokens":)");
    append_int(out, std::int64_t{prompt_tokens} + completion);
    out.append("}}");
}

void responses_writer::open_message(std::string& out) {
    event(out, "response.output_item.added");
    out.append(reasoning > 0 ? R"(,"output_index":1,"item":)" : R"(,"output_index":0,"item":)");
    message(out, "in_progress", nullptr);
    out.append("}\n\n");
    event(out, "response.content_part.added");
    part_of_item(out);
    out.append(R"(,"part":{"type":"output_text","text":"","annotations":[]}})").append("\n\n");
}

void responses_writer::opening(std::string& out) {
    for (const std::string_view type : {"response.created", "response.in_progress"}) {
        event(out, type);
        out.append(R"(,"response":)");
        response(out, "in_progress", nullptr, 0);
        out.append("}\n\n");
    }
    if (reasoning == 0) {
        open_message(out);
        return;
    }
    event(out, "response.output_item.added");
    out.append(R"(,"output_index":0,"item":)");
    reasoning_item(out, "in_progress", false);
    out.append("}\n\n");
    event(out, "response.reasoning_part.added");
    part_of_reasoning(out);
    out.append(R"(,"part":{"type":"reasoning_text","text":""}})").append("\n\n");
}

void responses_writer::close_reasoning(std::string& out) {
    event(out, "response.reasoning_text.done");
    part_of_reasoning(out);
    out.append(R"(,"text":")").append(thinking).append(R"("})").append("\n\n");
    event(out, "response.reasoning_part.done");
    part_of_reasoning(out);
    out.append(R"(,"part":{"type":"reasoning_text","text":")").append(thinking).append(R"("}})").append("\n\n");
    event(out, "response.output_item.done");
    out.append(R"(,"output_index":0,"item":)");
    reasoning_item(out, "completed", true);
    out.append("}\n\n");
}

void responses_writer::delta(std::string& out, event_writer& words, int k) {
    event(out, "response.output_text.delta");
    part_of_item(out);
    out.append(R"(,"delta":")");
    words.words(out, k);
    out.append(R"(","logprobs":[]})").append("\n\n");
}

bool responses_writer::step(std::string& out, event_writer& words, int k, int before) {
    const int think = std::clamp(reasoning - before, 0, k);
    if (think > 0) {
        event(out, "response.reasoning_text.delta");
        part_of_reasoning(out);
        out.append(R"(,"delta":")");
        words.thinking_words(out, think);
        out.append(R"("})").append("\n\n");
    }
    if (think == k) return false;
    if (before + think == reasoning && reasoning > 0) {
        close_reasoning(out);
        open_message(out);
    }
    delta(out, words, k - think);
    return true;
}

void responses_writer::closing(std::string& out, std::string_view text, int completion, bool length) {
    if (!answered(completion)) {
        close_reasoning(out);
    } else {
        event(out, "response.output_text.done");
        part_of_item(out);
        out.append(R"(,"text":")").append(text).append(R"(","logprobs":[]})").append("\n\n");
        event(out, "response.content_part.done");
        part_of_item(out);
        out.append(R"(,"part":{"type":"output_text","text":")").append(text).append(R"(","annotations":[]}})").append("\n\n");
        event(out, "response.output_item.done");
        out.append(reasoning > 0 ? R"(,"output_index":1,"item":)" : R"(,"output_index":0,"item":)");
        message(out, "completed", &text);
        out.append("}\n\n");
    }
    event(out, "response.completed");
    out.append(R"(,"response":)");
    response(out, length ? "incomplete" : "completed", &text, completion);
    out.append("}\n\n");
}

std::string responses_writer::body(std::string_view text, int completion, bool length) {
    std::string out;
    response(out, length ? "incomplete" : "completed", &text, completion);
    return out;
}

void responses_writer::malformed(std::string& out) {
    event(out, "response.output_text.delta");
    part_of_item(out);
    out.append(R"(,"delta":" tru)").append("\n\n");
}

}  // namespace openloop
