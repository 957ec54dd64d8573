#pragma once
// The simulated inference engine behind `openloop sim`: a cost model of
// continuous batching (vLLM-style scheduler, chunked prefill, KV-cache
// admission, prefix cache). Pure logic: no sockets, no clocks. The server asks
// it for one step at a time, sleeps for the step's duration and then delivers
// what the step produced; tests drive it in virtual time.

#include "openloop/sim/lora_slots.hpp"

#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace openloop {

// Cost of one forward pass (one "step") and the scheduler's limits.
// step time = step_base_ms + prefill_token_ms * prefill tokens computed
//           + decode_seq_ms * decoding sequences + kv_token_ms * KV tokens read
//           + the encoder's cost of the media of requests starting their prefill
//             (media_encode_ms per image or clip + media_encode_token_ms per media token)
struct cost_model {
    std::string name;
    double step_base_ms = 0;      // fixed cost per step (weights read, launch overhead)
    double prefill_token_ms = 0;  // per prompt token computed in the step
    double decode_seq_ms = 0;     // per sequence decoding in the step
    double kv_token_ms = 0;       // per KV-cache token attended to by the batch
    int max_num_seqs = 256;       // running sequences at most (vLLM max_num_seqs)
    int max_batched_tokens = 8192;  // token budget per step (vLLM max_num_batched_tokens)
    std::int64_t kv_capacity_tokens = 400'000;
    int max_model_len = 131072;   // prompt + output tokens at most per request
    int block_size = 16;          // KV block (and prefix-cache) granularity, tokens
    bool prefix_cache = true;
    int tokens_per_step = 1;      // tokens a decoding sequence gains per step (speculative decoding)
    bool firehose = false;        // zero cost: the server streams as fast as the socket takes
    double media_encode_ms = 0;        // per image or audio clip encoded (preprocessing, encoder launch)
    double media_encode_token_ms = 0;  // per media token the vision or audio encoder computes
    int max_loras = 1;            // LoRA adapters in one batch, and resident, at most (lora_slots.hpp)
    double lora_load_ms = 0;      // added to the step that loads an adapter not resident
};

// Named presets: "h100-8b", "cpu-small", "firehose". Empty when unknown.
std::optional<cost_model> find_preset(std::string_view name);
std::vector<std::string> preset_names();

struct seq_request {
    std::uint64_t id = 0;
    int prompt_tokens = 0;
    int output_tokens = 0;                   // tokens the sequence will generate before finishing
    std::vector<std::uint64_t> block_hashes; // one per full prompt block, chained (prefix cache key)
    // Media in the prompt (of prompt_tokens): encoded in the step of the first
    // prefill chunk unless the prefix cache holds every prompt token before media_end.
    int media_items = 0;
    int media_tokens = 0;
    int media_end = 0;
    int adapter = -1;                        // its LoRA adapter (--lora-modules index); -1: the base model
};

// What one step produced for one sequence.
struct emission {
    std::uint64_t id = 0;
    int tokens = 0;         // new output tokens (the first arrives with the step that ends prefill)
    bool finished = false;  // the sequence produced its last token and left the batch
    int cached_tokens = 0;  // prompt tokens served from the prefix cache (set on the first emission)
};

struct step_result {
    std::int64_t duration_ns = 0;  // 0 when the engine was idle
    int prefill_tokens = 0;
    int decode_seqs = 0;
    std::int64_t kv_tokens_read = 0;
    int encoded_items = 0;   // media items encoded in the step
    int encoded_tokens = 0;  // their tokens
    std::vector<emission> out;
};

class engine {
public:
    explicit engine(cost_model model);

    // Joins the waiting queue (FIFO). A request is admitted to the running batch
    // when a slot is free and the KV cache can hold prompt + output tokens.
    void add(seq_request r);
    // Drops a sequence (client went away); frees its slot and KV reservation.
    void abort(std::uint64_t id);

    // Plans and costs one step over the current batch and returns what it
    // produced; the caller delivers `out` after `duration_ns` has passed.
    step_result step();

    bool idle() const;
    std::size_t running() const;
    std::size_t waiting() const;
    double kv_usage() const;  // reserved KV tokens / capacity, 0..1
    std::int64_t prompt_tokens_total() const;
    std::int64_t generation_tokens_total() const;
    std::int64_t prefix_cache_queries() const;  // prompt blocks looked up
    std::int64_t prefix_cache_hits() const;     // prompt blocks found
    const cost_model& model() const;
    const lora_slots& loras() const { return loras_; }
    std::vector<int> waiting_adapters() const;  // adapters of waiting requests, each once, in index order

    // Implementation detail kept in the header so the class stays a value type.
    struct seq {
        seq_request req;
        int prefilled = 0;  // prompt tokens already computed (or cached)
        int generated = 0;
        int cached = 0;
        bool looked_up = false;  // the prefix cache was asked (at the first prefill chunk)
        bool first_emitted = false;
    };

private:
    void admit();
    int lookup_prefix(const seq_request& r);
    // Caches r's full prompt blocks among its first `computed` tokens.
    void insert_prefix(const seq_request& r, int computed);
    void finish(const seq& s);

    cost_model model_;
    std::size_t cache_capacity_blocks_ = 0;
    std::deque<seq> waiting_;
    std::vector<seq> running_;
    std::int64_t kv_reserved_ = 0;
    std::int64_t prompt_total_ = 0;
    std::int64_t generation_total_ = 0;
    std::int64_t cache_queries_ = 0;
    std::int64_t cache_hits_ = 0;
    lora_slots loras_;
    double load_ms_ = 0;  // adapters loaded for the coming step
    // Prefix cache: LRU set of block hashes, bounded by the KV capacity in blocks.
    std::list<std::uint64_t> lru_;
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> cached_blocks_;
};

// Steady-state capacity of a model for a fixed workload, from the cost model:
// the highest request rate it sustains without its queue growing.
struct capacity_estimate {
    double max_request_rate = 0;  // requests/s
    double output_token_rate = 0; // tokens/s at that rate
    int batch = 0;                // sequences in the batch at saturation
    double step_ms = 0;           // step time at saturation
    std::string limited_by;       // "max_num_seqs", "kv_cache", "token_budget", "none",
                                  // or "max_model_len" (rate 0: the request does not fit)
};
capacity_estimate predict_capacity(const cost_model& m, int input_len, int output_len);

}  // namespace openloop
