#include "openloop/cli/rag_options.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"

namespace openloop {

namespace po = boost::program_options;

po::options_description rag_options() {
    po::options_description r("Retrieval-augmented prompts (RAG)");
    r.add_options()
        ("rag-docs", po::value<int>(),
         "each prompt is a template every request shares, then --rag-k documents retrieved from a corpus of this "
         "many, then a question of --input-len tokens: a document is the same tokens in every prompt holding it, so "
         "a prefix cache finds the template always, and the documents of requests that retrieved the same ones first")
        ("rag-k", po::value<int>()->default_value(4), "documents per prompt, most relevant first (1-64)")
        ("rag-doc-len", po::value<int>()->default_value(512), "tokens per document")
        ("rag-template-len", po::value<int>()->default_value(256), "tokens of the shared template (instructions)")
        ("rag-zipf", po::value<double>()->default_value(1.0),
         "how much more often popular documents are retrieved: rank r has weight 1/r^S (0: all alike)");
    return r;
}

void fill_rag(const po::variables_map& vm, run_options& o) {
    if (!vm.count("rag-docs")) {
        for (const char* name : {"rag-k", "rag-doc-len", "rag-template-len", "rag-zipf"})
            if (!vm[name].defaulted()) throw usage_error(std::string("--") + name + " needs --rag-docs");
        return;
    }
    rag_config& c = o.workload.rag;
    c.docs = vm["rag-docs"].as<int>();
    if (c.docs < 1) throw usage_error("--rag-docs must be at least 1");
    c.k = vm["rag-k"].as<int>();
    c.doc_tokens = vm["rag-doc-len"].as<int>();
    c.template_tokens = vm["rag-template-len"].as<int>();
    c.zipf = vm["rag-zipf"].as<double>();
    try {
        check_rag(c);
    } catch (const input_error& e) {
        throw usage_error(e.what());
    }
    if (o.sessions)
        throw usage_error("--rag-docs with sessions: a session's turns are chat messages; give one or the other");
}

}  // namespace openloop
