// A tokenizer.json from the input, then text encoded with it. Input: the
// tokenizer.json's text up to the first NUL byte (at most 16 KiB), then the
// text to encode (at most 4 KiB).
// Invariants: a file that cannot be used throws std::runtime_error naming
// the file, a text it refuses input_error naming the file, nothing else
// escapes; a loaded tokenizer's ids are all below its vocab_size, with and
// without special tokens, and they decode.

#include "fuzz_input.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace {

const std::string& json_path() {
    static const std::string path =
        (std::filesystem::temp_directory_path() / ("openloop-fuzz-" + std::to_string(getpid()) + "-tokenizer.json")).string();
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view in(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = in.find('\0');
    if (nul == std::string_view::npos || nul > 16 * 1024 || size - nul - 1 > 4 * 1024) return 0;
    {
        std::ofstream out(json_path(), std::ios::binary | std::ios::trunc);
        out << in.substr(0, nul);
    }
    std::unique_ptr<openloop::local_tokenizer> tok;
    try {
        tok = openloop::load_hf_tokenizer(json_path());
    } catch (const std::runtime_error& e) {
        FUZZ_CHECK(std::string_view(e.what()).starts_with(json_path()));
        return 0;
    }
    const std::string_view text = in.substr(nul + 1);
    for (const bool special : {false, true}) {
        std::vector<std::int32_t> ids;
        try {
            ids = tok->encode(text, special);
        } catch (const openloop::input_error& e) {
            // A normalizer the file gave may multiply the text, a pattern exceed PCRE2's match
            // limits: refused, named with the file.
            FUZZ_CHECK(std::string_view(e.what()).starts_with(json_path()));
            return 0;
        }
        for (const std::int32_t id : ids) FUZZ_CHECK(id >= 0 && std::size_t(id) < tok->vocab_size());
        (void)tok->decode(ids, special);
    }
    return 0;
}
