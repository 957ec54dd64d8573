#pragma once
// Byte-pair merging by rank, the one core of the Hugging Face BPE model and of
// tiktoken: the parts of a word are merged pair by pair, always the adjacent
// pair of lowest rank, the leftmost of equal ranks, until no adjacent pair has
// a rank. What a pair's rank is (a merges list, a rank file) is the caller's.
// Short words go through a scan; long ones through a heap, so a word of
// thousands of parts costs n log n. Pure.

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace openloop::bpe {

// One part of a word: bytes [start, end) of it, and its token id.
struct part {
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    std::int32_t id = -1;
};

struct merge_rank {
    static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t rank = none;  // lower merges first
    std::int32_t id = -1;       // the merged part's id
};

namespace detail {

template <class RankFn>
void merge_by_scan(std::vector<part>& parts, RankFn& rank_of) {
    std::vector<merge_rank> ranks(parts.size() - 1);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) ranks[i] = rank_of(parts[i], parts[i + 1]);
    while (!ranks.empty()) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < ranks.size(); ++i)
            if (ranks[i].rank < ranks[best].rank) best = i;
        if (ranks[best].rank == merge_rank::none) break;
        parts[best] = part{parts[best].start, parts[best + 1].end, ranks[best].id};
        parts.erase(parts.begin() + std::ptrdiff_t(best) + 1);
        ranks.erase(ranks.begin() + std::ptrdiff_t(best));
        if (best > 0) ranks[best - 1] = rank_of(parts[best - 1], parts[best]);
        if (best < ranks.size()) ranks[best] = rank_of(parts[best], parts[best + 1]);
    }
}

template <class RankFn>
void merge_by_heap(std::vector<part>& parts, RankFn& rank_of) {
    const std::size_t n = parts.size();
    std::vector<std::uint32_t> next(n), prev(n);
    std::vector<bool> alive(n, true);
    for (std::size_t i = 0; i < n; ++i) {
        next[i] = std::uint32_t(i + 1);
        prev[i] = std::uint32_t(i == 0 ? n : i - 1);
    }
    // (rank, start of the left part, left index, end of the right part):
    // an entry is stale once either part has grown.
    struct entry {
        std::uint32_t rank, start, left, right_end;
        std::int32_t id;
        bool operator>(const entry& o) const { return rank != o.rank ? rank > o.rank : start > o.start; }
    };
    std::priority_queue<entry, std::vector<entry>, std::greater<>> heap;
    const auto push = [&](std::uint32_t left) {
        const std::uint32_t right = next[left];
        if (right >= n) return;
        const merge_rank r = rank_of(parts[left], parts[right]);
        if (r.rank != merge_rank::none) heap.push({r.rank, parts[left].start, left, parts[right].end, r.id});
    };
    for (std::uint32_t i = 0; i + 1 < n; ++i) push(i);
    while (!heap.empty()) {
        const entry e = heap.top();
        heap.pop();
        const std::uint32_t right = next[e.left];
        if (!alive[e.left] || right >= n || parts[right].end != e.right_end) continue;
        parts[e.left] = part{parts[e.left].start, parts[right].end, e.id};
        alive[right] = false;
        next[e.left] = next[right];
        if (next[right] < n) prev[next[right]] = e.left;
        if (prev[e.left] < n) push(prev[e.left]);
        push(e.left);
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) parts[kept++] = parts[i];
    parts.resize(kept);
}

}  // namespace detail

// Merges parts in place. rank_of(left, right) -> merge_rank.
template <class RankFn>
void merge(std::vector<part>& parts, RankFn&& rank_of) {
    if (parts.size() < 2) return;
    // Below this the scan's few passes over a short array beat the heap.
    constexpr std::size_t heap_from = 48;
    if (parts.size() < heap_from) detail::merge_by_scan(parts, rank_of);
    else detail::merge_by_heap(parts, rank_of);
}

}  // namespace openloop::bpe
