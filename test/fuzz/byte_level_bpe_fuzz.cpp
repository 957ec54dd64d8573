// A fixed byte-level BPE tokenizer (every byte a token, a few merges, added
// tokens; GPT-2's kind) encoding the input (at most 8 KiB).
// Invariants: ids are below vocab_size; decoding gives back the input exactly
// once it is valid UTF-8 (invalid bytes read as U+FFFD), as byte-level BPE
// loses nothing.

#include "fuzz_input.hpp"

#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/text/byte_level.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

std::unique_ptr<openloop::local_tokenizer> make_tokenizer() {
    namespace json = boost::json;
    json::object vocab;
    for (int b = 0; b < 256; ++b) vocab[openloop::byte_level::char_of(static_cast<unsigned char>(b))] = b;
    json::array merges;
    std::int64_t next = 256;
    for (const char* m : {"Ġ t", "h e", "i n", "Ġt he", "r e", "o n", "e r", "Ġ a", "Ġ Ġ", "ĠĠ ĠĠ", "Ċ Ċ"}) {
        merges.emplace_back(m);
        std::string merged(m);
        merged.erase(merged.find(' '), 1);
        vocab[merged] = next++;
    }
    json::object model{{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}};
    json::array added{json::object{{"id", next}, {"content", "<|end|>"}, {"special", true}},
                      json::object{{"id", next + 1}, {"content", "<tag>"}, {"special", false}}};
    json::object root{{"model", model}, {"added_tokens", added}, {"normalizer", nullptr},
                      {"pre_tokenizer", json::parse(R"({"type": "Sequence", "pretokenizers": [
                          {"type": "Split", "pattern": {"Regex": "(?i:'s|'t)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
                           "behavior": "Isolated", "invert": false},
                          {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})")},
                      {"decoder", json::object{{"type", "ByteLevel"}}}};
    const auto dir = std::filesystem::temp_directory_path() / ("openloop-fuzz-" + std::to_string(getpid()) + "-bpe");
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "tokenizer.json") << json::serialize(root);
    // No clean-up of " ." and the like, so that decoding is exact.
    std::ofstream(dir / "tokenizer_config.json") << R"({"clean_up_tokenization_spaces": false})";
    return openloop::load_hf_tokenizer(dir.string());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto tok = make_tokenizer();
    if (size > 8 * 1024) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::vector<std::int32_t> ids = tok->encode(text, false);
    for (const std::int32_t id : ids) FUZZ_CHECK(id >= 0 && std::size_t(id) < tok->vocab_size());
    FUZZ_CHECK(tok->decode(ids, false) == openloop::utf8::sanitize(text));
    return 0;
}
