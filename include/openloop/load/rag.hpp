#pragma once
// Retrieval-augmented prompts: a template every request shares, then the k
// documents it retrieved from a corpus of n, then its own question. A
// document is the same tokens in every prompt that holds it, so a prefix
// cache finds the template always and the first documents of requests that
// retrieved the same ones first. Popular documents are retrieved more often:
// rank r (from 1) has weight 1 / r^zipf (0: all alike). Pure logic.

#include "openloop/load/prompt_builder.hpp"

#include <cstdint>
#include <vector>

namespace openloop {

struct request_spec;  // workload.hpp

struct rag_config {
    int docs = 0;  // corpus size; 0: no RAG
    int k = 4;     // documents per prompt, most relevant first
    int doc_tokens = 512;
    int template_tokens = 256;
    double zipf = 1.0;
    bool enabled() const { return docs > 0; }
};

// Throws input_error naming the --rag-* flag at fault.
void check_rag(const rag_config& c);

class rag_corpus {
public:
    explicit rag_corpus(const rag_config& c);
    const rag_config& config() const { return c_; }
    // The k distinct documents request index retrieves (0 is the most
    // popular), most relevant first: a function of seed and index alone.
    void retrieve(std::uint64_t seed, std::uint64_t index, std::vector<int>& out) const;
    // Template, docs and a question of question_tokens unique to index, into
    // out (input_tokens their sum); max_tokens and the rest are left as they are.
    void build(const std::vector<int>& docs, int question_tokens, std::uint64_t seed, std::uint64_t index,
               const prompt_builder& builder, request_spec& out) const;

private:
    rag_config c_;
    std::vector<double> cdf_;  // by rank, cumulative weight normalised to 1
};

}  // namespace openloop
