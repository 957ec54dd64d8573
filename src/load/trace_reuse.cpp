#include "openloop/load/trace_reuse.hpp"

#include <algorithm>

namespace openloop {
namespace {

int sent_input(const trace_entry& e) { return std::max(1, e.input_tokens); }

// Tokens of block j that trace_request sends for e.
int block_tokens(const trace_entry& e, std::size_t j) {
    const auto start = static_cast<std::int64_t>(j) * trace_block_tokens;
    return static_cast<int>(std::clamp<std::int64_t>(sent_input(e) - start, 0, trace_block_tokens));
}

}  // namespace

int prefix_blocks::reusable(const trace_entry& e) const {
    int covered = 0;
    for (std::size_t j = 0; j < e.hash_ids.size(); ++j) {
        const int want = block_tokens(e, j);
        if (want == 0) break;
        const auto it = tokens_.find(e.hash_ids[j]);
        if (it == tokens_.end()) break;
        covered += std::min(want, it->second);
        if (it->second < want) break;  // the rest of this block was never sent
    }
    return covered;
}

void prefix_blocks::add(const trace_entry& e) {
    for (std::size_t j = 0; j < e.hash_ids.size(); ++j) {
        const int n = block_tokens(e, j);
        if (n == 0) break;
        int& seen = tokens_[e.hash_ids[j]];
        seen = std::max(seen, n);
    }
}

std::vector<int> implied_reuse(const std::vector<trace_entry>& entries) {
    std::vector<int> out;
    out.reserve(entries.size());
    prefix_blocks seen;
    for (const trace_entry& e : entries) {
        out.push_back(seen.reusable(e));
        seen.add(e);
    }
    return out;
}

int implied_reuse_at(const std::vector<trace_entry>& entries, const std::vector<int>& reuse, std::uint64_t index) {
    const std::uint64_t n = entries.size();
    if (n == 0) return 0;
    if (index < n && index < reuse.size()) return reuse[index];
    const trace_entry& e = entries[index % n];
    int all = 0;
    for (std::size_t j = 0; j < e.hash_ids.size(); ++j) all += block_tokens(e, j);
    return all;
}

}  // namespace openloop
