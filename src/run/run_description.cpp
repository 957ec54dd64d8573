#include "openloop/run/run_description.hpp"

#include "openloop/load/session.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/environment.hpp"

#include <cstdio>

namespace openloop {

namespace {

// "a=0.5,b=0.3,c=0.2" with the weights normalized; empty for one model.
std::string model_mix_text(const model_mix& models) {
    if (!models.mixed()) return {};
    double total = 0;
    for (const model_share& m : models.models()) total += m.weight;
    std::string text;
    for (const model_share& m : models.models()) {
        char weight[32];
        std::snprintf(weight, sizeof weight, "%g", total > 0 ? m.weight / total : 0.0);
        text += (text.empty() ? "" : ",") + m.name + "=" + weight;
    }
    return text;
}

// A flag's value that asks for nothing: 0, false, null or empty.
bool off(const boost::json::value& v) {
    return v.is_null() || (v.is_bool() && !v.get_bool()) || (v.is_number() && v.to_number<double>() == 0) ||
           (v.is_string() && (v.get_string().empty() || v.get_string() == "0"));
}

// The media flags as recorded (every config key of an image or audio flag) and the size
// buckets; empty for a run that asked for no media, so a text-only run.json is as it was.
boost::json::object media_description(const boost::json::object& config, const media_config& media) {
    boost::json::object out;
    bool asked = !media.image_sizes.empty();
    for (const auto& [key, value] : config) {
        if (!key.starts_with("image") && !key.starts_with("audio")) continue;
        out[key] = value;
        asked = asked || ((key == "images" || key == "audios" || key == "image-dir") && !off(value));
    }
    if (!asked) return {};
    boost::json::array sizes;
    for (const image_bucket& b : media.image_sizes) sizes.emplace_back(boost::json::object{{"size", b.label()}, {"weight", b.weight}});
    if (!sizes.empty()) out["image_sizes"] = std::move(sizes);
    return out;
}

}  // namespace

run_context describe_run(const run_plan& plan, double offered_rate) {
    const run_options& o = plan.options();
    const preparation& prepared = plan.prepared();
    const session_plan* sessions = plan.sessions();
    const double trace_speed = plan.load().trace_details().speed;
    run_context ctx;
    ctx.config = o.config;
    ctx.config["model"] = prepared.model;
    ctx.environment = environment_info();
    ctx.target = o.target_label.empty() ? plan.client().target.display() : o.target_label;
    ctx.mode = o.concurrency > 0 ? "closed-loop" : "open-loop";
    const bool trace = !o.workload.trace_file.empty() && !o.workload.trace_lengths_only;
    // A shard offers its share of the schedule's rate; a trace's rate is measured, its share already.
    const double share = 1.0 / o.shard.count;
    ctx.request_rate = o.concurrency > 0 ? 0 : trace ? offered_rate : o.arrival.rate * share;
    ctx.burstiness = o.arrival.burstiness;
    char words[160];
    if (o.concurrency > 0) {
        std::snprintf(words, sizeof words, "%d workers back to back", o.concurrency);
    } else if (trace && sessions && sessions->traced_count() > 0) {
        std::snprintf(words, sizeof words, "trace replay x%g", trace_speed);  // its turns follow their answers
    } else if (trace) {
        std::snprintf(words, sizeof words, "trace replay x%g, %.3g req/s offered", trace_speed, ctx.request_rate);
    } else if (!o.arrival.profile.empty()) {
        std::snprintf(words, sizeof words, "%s, rate profile of %zu segments", std::string(to_string(o.arrival.kind)).c_str(),
                      o.arrival.profile.size());
    } else if (o.arrival.kind == arrival_kind::gamma) {
        std::snprintf(words, sizeof words, "gamma %g req/s, burstiness %g", o.arrival.rate, o.arrival.burstiness);
    } else {
        std::snprintf(words, sizeof words, "%s %g req/s", std::string(to_string(o.arrival.kind)).c_str(), o.arrival.rate);
    }
    ctx.arrival = words;
    if (sessions) {
        // The schedule is of sessions; their turns follow their answers, so no request rate is offered as such.
        ctx.mode = "sessions";
        ctx.request_rate = 0;
        std::string text = ctx.arrival;
        if (const auto at = text.find(" req/s"); at != std::string::npos) text.replace(at, 6, " sessions/s");
        ctx.arrival = text + ", " + sessions->describe();
    }
    if (o.shard.sharded()) ctx.shard = std::to_string(o.shard.index) + "/" + std::to_string(o.shard.count);
    ctx.clock.start_at_ns = o.start_at_ns;
    ctx.clock.tolerance_ms = o.start_tolerance_s * 1e3;
    ctx.max_concurrency = o.concurrency > 0       ? o.concurrency
                          : o.max_concurrency > 0 ? static_cast<int>(o.max_concurrency)
                                                  : static_cast<int>(o.max_inflight);
    ctx.headline = o.headline;
    ctx.lag_bound_ms = o.lag_bound_ms;
    ctx.max_error_rate = o.max_error_rate;
    ctx.tokenizer = prepared.tokenizer;
    ctx.streamed = streams(o);
    ctx.model_mix = model_mix_text(prepared.models);
    ctx.media = media_description(o.config, o.media);
    return ctx;
}

}  // namespace openloop
