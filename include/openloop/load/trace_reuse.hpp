#pragma once
// The prefix reuse a trace implies: how many of each request's leading prompt
// tokens a prefix cache could already hold because an earlier request of the
// replay carried the same hash blocks. Mooncake hash ids are chained (a block's
// id names its whole prefix), so only a leading run of known blocks counts,
// as a prefix cache sees it. Pure logic.

#include "openloop/load/trace.hpp"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace openloop {

// The blocks requests have carried so far, each with the most of its tokens
// any of them sent (a request's last block may be partial).
class prefix_blocks {
public:
    // Leading prompt tokens of e that blocks already added cover: the leading
    // run of known blocks, each for at most what was sent of it, stopping
    // after a block known only in part; at most e's input length (at least 1,
    // as trace_request sends it).
    int reusable(const trace_entry& e) const;
    // e's blocks, as trace_request sends them (the blocks its input length reaches).
    void add(const trace_entry& e);

private:
    std::unordered_map<std::uint64_t, int> tokens_;
};

// Per entry of a replay in order: its reusable tokens given every earlier entry.
std::vector<int> implied_reuse(const std::vector<trace_entry>& entries);

// Request index of a replay that loops over entries: index < n is
// reuse[index]; a later lap's request i is entry i % n with every one of its
// blocks seen (the previous lap sent them).
int implied_reuse_at(const std::vector<trace_entry>& entries, const std::vector<int>& reuse, std::uint64_t index);

}  // namespace openloop
