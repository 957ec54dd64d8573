#pragma once
// Thinking inside the answer's text. A server without a reasoning parser
// (llama.cpp without --reasoning-format, many gateways, older Ollama) streams a
// thinking model's <think>…</think> as ordinary content; read as answer, its
// time to first answer token would be its TTFT. This reads the tags as the
// chunks come, a tag split across chunks included, and says how much of each
// chunk's text was thinking (the tags counted with it). Counts are code points,
// as chunk_info's are; the text is read as it lay in the chunk, JSON escapes
// decoded on the way (Go's encoder writes < as \u003c). A few bytes of state
// per stream, nothing allocated. Pure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace openloop {

// --reasoning-parser.
enum class reasoning_parser : std::uint8_t {
    // The tags are read only in a stream whose first content opens with <think>.
    auto_detect,
    // Every stream's content is thinking up to </think>, an opening <think> or not (a chat
    // template that opens it in the prompt, as DeepSeek-R1's does, streams only the closing tag).
    think_tags,
    // Content is answer.
    none,
};
// "auto", "think-tags", "none"; nullopt for any other name.
std::optional<reasoning_parser> reasoning_parser_from(std::string_view name);
std::string_view reasoning_parser_name(reasoning_parser p);

class think_tag_reader {
public:
    static constexpr std::size_t open_tag_size = 7;  // <think>

    // A new stream.
    void start(reasoning_parser p);

    // The next generated text of the stream's first choice, JSON-escaped when escaped; empty for
    // a chunk that generated something else (a tool call), which is never a tag's. Returns the
    // code points of it that are thinking; a text that may yet be the opening <think>
    // (undecided()) counts none, and is thinking when the tag completes (used()), else answer.
    std::size_t read(std::string_view text, bool escaped);
    // The stream's thinking came in the server's own reasoning fields: the server parses it,
    // and its content is the answer.
    void server_parses() { state_ = state::answer; }
    // A content text may still hold thinking.
    bool reading() const { return state_ != state::answer; }
    // auto: the stream's content so far is the start of <think>.
    bool undecided() const { return state_ == state::opening && matched_ > 0; }
    // Thinking was read from the tags in this stream.
    bool used() const { return used_; }

private:
    enum class state : std::uint8_t { opening, inside, answer };
    // One code point of the text; thinking counts the text's thinking.
    void step(char32_t c, std::size_t& thinking);

    state state_ = state::answer;
    std::uint8_t matched_ = 0;  // characters of the tag matched so far, across chunks
    bool used_ = false;
};

}  // namespace openloop
