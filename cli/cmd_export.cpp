// fusekilab export: a trained network in another file format (TorchScript today).
#include <cstdio>

#include "cli/commands.h"
#include "net/checkpoint.h"

namespace fuseki::cli {

void add_export_command(CLI::App& app, Runner& run) {
  struct ExportArgs {
    std::string network, torchscript;
  };
  auto a = std::make_shared<ExportArgs>();
  CLI::App* ex = app.add_subcommand(
      "export", "Write a network checkpoint in another format (TorchScript: torch.jit.load)");
  ex->add_option("--network", a->network, "Checkpoint (.ckpt)")->required();
  ex->add_option("--torchscript", a->torchscript,
                 "TorchScript file to write: forward(x [N,36,9,9]) -> (policy logits [N,288], "
                 "value [N])")
      ->required();
  ex->callback([&run, a] {
    run = [a] {
      net::Checkpoint c = net::load_checkpoint(a->network);
      net::export_torchscript(*c.net, a->torchscript);
      std::printf("export: %s (%s, %s) -> %s\n", a->network.c_str(),
                  net::architecture_record(c.config).c_str(), net::describe(c.config).c_str(),
                  a->torchscript.c_str());
      return 0;
    };
  });
}

}  // namespace fuseki::cli
