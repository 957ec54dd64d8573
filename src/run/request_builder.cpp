#include "openloop/run/request_builder.hpp"

#include "openloop/load/media.hpp"
#include "openloop/run/run_plan.hpp"

#include <utility>

namespace openloop {

request_builder::request_builder(const run_plan& plan) : plan_(plan), body_(plan.bodies()) {}

std::uint8_t request_builder::model_of(std::uint64_t index) const {
    return plan_.prepared().models.pick(index, plan_.options().workload.seed);
}

prepared_request request_builder::build(request_spec& spec, std::uint64_t index, std::int64_t session) {
    const run_options& o = plan_.options();
    const preparation& prepared = plan_.prepared();
    prepared_request p;
    // A sweep's stages go on from unique_from, as their prompts do: their fresh images are new too.
    if (const media_set* m = prepared.media.get()) m->pick(o.workload.unique_from + index, spec.media);
    if (!spec.media.empty() && !spare_splices_.empty()) {
        p.splices = std::move(spare_splices_.back());
        spare_splices_.pop_back();
    }
    p.splices.reserve(spec.media.size());  // once per spare list: a list grows to its largest request
    body_text_.clear();
    // The run's one model, or the mix's entry (its first is the model).
    body_.append(body_text_, spec, prepared.models.mixed() ? prepared.models.name(spec.model) : prepared.model,
                 spec.media.empty() ? nullptr : &p.splices);
    if (!spare_bytes_.empty()) {
        p.bytes = std::move(spare_bytes_.back());
        spare_bytes_.pop_back();
    }
    std::size_t spliced = 0;
    for (const body_splice& s : p.splices) spliced += s.payload.size();
    p.head = write_http_request(p.bytes, plan_.client(), o.request_id_prefix, index, body_text_, session, spliced);
    p.model = spec.model;
    if (!p.splices.empty()) {
        for (body_splice& s : p.splices) s.at += p.head;
        set_media_shape(p, spec);
    }
    // A transcription sends neither the prompt nor an output length: its tokens are the clip's, from usage.
    const bool transcription = o.endpoint == endpoint_kind::transcriptions;
    p.input_tokens = transcription ? 0 : spec.input_tokens + prepared.tools_prompt_tokens;
    p.max_tokens = transcription ? 0 : spec.max_tokens;
    return p;
}

void request_builder::set_media_shape(prepared_request& p, const request_spec& spec) const {
    const media_set& m = *plan_.prepared().media;
    int bucket = -2;  // none seen yet
    for (const std::uint32_t i : spec.media) {
        const media_item& item = m.item(i);
        if (item.type == media_item::kind::audio) {
            ++p.audios;
            continue;
        }
        ++p.images;
        bucket = bucket == -2 || bucket == item.bucket ? item.bucket : -1;
    }
    p.bucket = static_cast<std::int16_t>(bucket == -2 ? -1 : bucket);
}

void request_builder::recycle(prepared_request& r) {
    recycle(r.bytes);
    if (r.splices.capacity() > 0 && spare_splices_.size() < max_spare_bytes) {
        r.splices.clear();
        spare_splices_.push_back(std::move(r.splices));
    }
}

void request_builder::recycle(std::string& bytes) {
    if (spare_bytes_.size() < max_spare_bytes) {
        bytes.clear();
        spare_bytes_.push_back(std::move(bytes));
    }
}

}  // namespace openloop
