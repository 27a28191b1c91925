// fusekilab export: a trained network in another file format (TorchScript, ONNX).
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cli/commands.h"
#include "net/checkpoint.h"
#include "net/onnx_export.h"

namespace fuseki::cli {

void add_export_command(CLI::App& app, Runner& run) {
  struct ExportArgs {
    std::string network, torchscript, onnx;
    bool value = false;
  };
  auto a = std::make_shared<ExportArgs>();
  CLI::App* ex = app.add_subcommand(
      "export",
      "Write a network checkpoint in another format (TorchScript: torch.jit.load; ONNX: "
      "onnxruntime, the fusekishogi.com front end)");
  ex->add_option("--network", a->network, "Checkpoint (.ckpt)")->required();
  ex->add_option("--torchscript", a->torchscript,
                 "TorchScript file to write: forward(x [N,36,9,9]) -> (policy logits [N,288], "
                 "value [N])");
  ex->add_option("--onnx", a->onnx,
                 "ONNX file to write (opset 17). Native format: planes [N,36,9,9] -> policy "
                 "[N,288], value [N]. Site format: input1 [N,62,9,9], input2 [N,59,9,9] -> "
                 "output_policy [N,648] (and output_value with --value)");
  ex->add_flag("--value", a->value,
               "ONNX, site format: also write output_value [N,1] = 2 x the value head's "
               "pre-tanh output (its sigmoid is the mover's win probability)");
  ex->callback([&run, a] {
    run = [a] {
      if (a->torchscript.empty() && a->onnx.empty())
        throw std::runtime_error("export: give --torchscript FILE and/or --onnx FILE");
      if (a->value && a->onnx.empty()) throw std::runtime_error("export: --value needs --onnx");
      if (!a->torchscript.empty() && !a->onnx.empty() &&
          std::filesystem::weakly_canonical(std::filesystem::absolute(a->torchscript)) ==
              std::filesystem::weakly_canonical(std::filesystem::absolute(a->onnx)))
        throw std::runtime_error("export: --torchscript and --onnx name the same file, '" +
                                 a->onnx + "': the second would replace the first");
      net::Checkpoint c = net::load_checkpoint(a->network);
      c.net->eval();
      const std::string what = net::architecture_record(c.config) + ", " + net::describe(c.config);
      if (!a->torchscript.empty()) {
        net::export_torchscript(*c.net, a->torchscript);
        std::printf("export: %s (%s) -> %s\n", a->network.c_str(), what.c_str(),
                    a->torchscript.c_str());
      }
      if (!a->onnx.empty()) {
        net::OnnxExportOptions options;
        options.value = a->value;
        net::export_onnx(*c.net, a->onnx, options);
        std::printf("export: %s (%s) -> %s (ONNX opset %d%s)\n", a->network.c_str(), what.c_str(),
                    a->onnx.c_str(), net::kOnnxOpset,
                    c.config.site()
                        ? (a->value ? ", output_policy, output_value" : ", output_policy")
                        : ", policy, value");
      }
      return 0;
    };
  });
}

}  // namespace fuseki::cli
