#include "openloop/load/trace_request.hpp"

#include "openloop/base/random.hpp"

#include <algorithm>

namespace openloop {

void trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index, const prompt_builder& builder,
                   request_spec& spec) {
    constexpr std::uint64_t block_salt = 0x6a09e667f3bcc908ULL;
    constexpr std::uint64_t unique_salt = 0xbb67ae8584caa73bULL;
    spec.prompt.clear();
    spec.prompt_ids.clear();
    spec.input_tokens = std::max(1, entry.input_tokens);
    spec.max_tokens = std::max(1, entry.output_tokens);
    spec.at_ns = entry.at_ns;
    spec.prefix_group = -1;
    if (!entry.prompt.empty()) {
        spec.prompt = entry.prompt;
        return;
    }
    // Vocabulary words average under 6 letters plus a space.
    spec.prompt.reserve(std::size_t(spec.input_tokens) * 7);
    prompt_layout layout(builder, spec.prompt, spec.prompt_ids, spec.input_tokens);
    for (std::uint64_t h : entry.hash_ids) layout.segment(trace_block_tokens, mix64(mix64(seed ^ block_salt) ^ h));
    layout.rest(mix64(mix64(seed ^ unique_salt) ^ index));
}

request_spec trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index,
                           const prompt_builder& builder) {
    request_spec spec;
    trace_request(entry, seed, index, builder, spec);
    return spec;
}

}  // namespace openloop
