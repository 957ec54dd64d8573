// The chunk decoder on arbitrary payloads (one SSE event's data each).
// Invariants: counts are bounded by the payload (no code point without a
// byte, reasoning a part of content); usage figures are -1 or valid, never
// negative otherwise, and absent usage means all -1 and no bad_usage; an
// error code only comes with an error chunk; only content chunks count text; the decoder keeps nothing
// between calls, so decoding something else in between changes nothing; and
// wherever the one-pass scan answers, it answers as the full parse does, its
// escaped text reading (for <think> tags) as the full parse's decoded text.

#include "fuzz_input.hpp"

#include "openloop/wire/chunk.hpp"
#include "openloop/wire/chunk_scan.hpp"
#include "openloop/wire/think_tags.hpp"

#include <string_view>
#include <utility>

namespace {

using openloop::chunk_info;
using openloop::chunk_kind;

bool same(const chunk_info& x, const chunk_info& y) {
    return x.kind == y.kind && x.content_chars == y.content_chars && x.reasoning_chars == y.reasoning_chars &&
           x.choices == y.choices && x.finished == y.finished && x.has_usage == y.has_usage &&
           x.prompt_tokens == y.prompt_tokens && x.completion_tokens == y.completion_tokens &&
           x.cached_tokens == y.cached_tokens && x.reasoning_tokens == y.reasoning_tokens &&
           x.tool_call == y.tool_call && x.bad_usage == y.bad_usage && x.error_code == y.error_code;
}

// The thinking a think-tags reader finds in a chunk's text, and whether it still reads.
std::pair<std::size_t, bool> tags_of(const chunk_info& c) {
    openloop::think_tag_reader r;
    r.start(openloop::reasoning_parser::think_tags);
    const std::size_t n = r.read(c.text, c.text_escaped);
    return {n, r.reading()};
}

// A large chunk, so that the arena overflows to the heap between the two decodes.
const std::string& other_payload() {
    static const std::string s = [] {
        std::string t = R"({"choices":[{"index":0,"delta":{"content":")";
        t.append(20000, 'x');
        t += R"("},"finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":9}})";
        return t;
    }();
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view payload(reinterpret_cast<const char*>(data), size);
    static openloop::chunk_decoder decoder;

    const chunk_info a = decoder.decode(payload);
    FUZZ_CHECK(a.reasoning_chars <= a.content_chars);
    FUZZ_CHECK(a.content_chars <= payload.size());
    FUZZ_CHECK(a.choices <= payload.size());
    FUZZ_CHECK(openloop::utf8_length(payload) <= payload.size());
    for (const std::int64_t n : {a.prompt_tokens, a.completion_tokens, a.cached_tokens, a.reasoning_tokens}) {
        FUZZ_CHECK(n >= -1);
        FUZZ_CHECK(a.has_usage || n == -1);
    }
    FUZZ_CHECK(a.has_usage || !a.bad_usage);
    FUZZ_CHECK(a.error_code >= 0);
    FUZZ_CHECK(a.kind == chunk_kind::error || a.error_code == 0);
    if (a.kind == chunk_kind::done) FUZZ_CHECK(!a.has_usage && !a.finished && a.choices == 0);
    if (a.kind == chunk_kind::completed) FUZZ_CHECK(!a.finished && a.choices == 0);
    if (a.kind == chunk_kind::malformed) FUZZ_CHECK(!a.finished && a.choices == 0 && !a.tool_call);
    // Only a choice calls a tool.
    FUZZ_CHECK(!a.tool_call || a.choices > 0);
    // Generated text is what makes a chunk content, and only that.
    FUZZ_CHECK((a.kind == chunk_kind::content) || a.content_chars == 0);

    decoder.decode(other_payload());
    FUZZ_CHECK(same(decoder.decode(payload), a));

    const chunk_info full = decoder.decode_full(payload);
    FUZZ_CHECK(same(full, a));
    // The first choice's text is the generated text's: never more code points than the chunk has.
    FUZZ_CHECK(tags_of(full).first <= full.content_chars);
    const auto full_tags = tags_of(full);
    std::string_view trimmed = payload;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t' || trimmed.front() == '\r' || trimmed.front() == '\n'))
        trimmed.remove_prefix(1);
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t' || trimmed.back() == '\r' || trimmed.back() == '\n'))
        trimmed.remove_suffix(1);
    if (trimmed != "[DONE]") {
        if (const auto scanned = openloop::scan_chunk(trimmed)) {
            FUZZ_CHECK(same(*scanned, full));
            FUZZ_CHECK(tags_of(*scanned) == full_tags);
        }
    }
    return 0;
}
