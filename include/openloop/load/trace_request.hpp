#pragma once
// A trace row's request: a prompt of the row's length whose blocks are shared
// with every row naming the same block ids, so a replay reuses prefixes as the
// trace did. Pure.

#include "openloop/load/trace_entry.hpp"
#include "openloop/load/workload.hpp"

#include <cstdint>

namespace openloop {

// The request for entry: a prompt of exactly input_tokens tokens (as builder
// counts them) in which each hash block id h contributes the content of a
// block derived from (seed, h), so requests sharing leading hash_ids share
// exactly those prefix tokens (a final partial block is a prefix of its full
// block); the rest is unique to index.
// An entry with a literal prompt sends that text (its blocks unused), with
// input_tokens as its intended length.
// max_tokens = output_tokens; at_ns from the entry. Lengths below 1 become 1,
// since servers reject empty prompts and max_tokens 0.
request_spec trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index,
                           const prompt_builder& builder = {});
// The same into out, whose memory is reused.
void trace_request(const trace_entry& entry, std::uint64_t seed, std::uint64_t index, const prompt_builder& builder,
                   request_spec& out);

}  // namespace openloop
