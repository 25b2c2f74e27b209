#!/usr/bin/env python3
"""Tables of a hostile-peer campaign's JSON (build/testbench/hostile_campaign --json).

usage: hostile_report.py CAMPAIGN.json > TABLES.md

Frames per mutation class, node b's receive path (frames reaching and
rejected at each check, drop causes with mlx5's counter names where mlx5 has
one), the attacked QPs' completions and end states.
"""
import json
import sys

# Our counter -> mlx5's name (Linux drivers/infiniband/hw/mlx5/counters.c), where one exists.
MLX5 = {
    "out_of_sequence": "out_of_sequence",
    "duplicate_request": "duplicate_request",
    "resp_remote_access_errors": "resp_remote_access_errors",
    "resp_local_length_error": "resp_local_length_error",
    "packet_seq_err": "packet_seq_err",
    "rnr_nak_retry_err": "rnr_nak_retry_err",
    "implied_nak_seq_err": "implied_nak_seq_err",
    "local_ack_timeout_err": "local_ack_timeout_err",
}


def table(rows, head):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def main():
    run = json.load(open(sys.argv[1]))
    path = run["node_b_receive_path"]
    print(f"passed: {run['passed']}; frames sent {run['frames_sent']:,} (drawn again: "
          f"{run['frames_redrawn']:,}); simulated {run['simulated_us'] / 1e6:.3f} s; wall "
          f"{run['wall_seconds']:.1f} s; bounds check broken for test: "
          f"{run['bounds_check_broken_for_test']}\n")
    print(f"memory violations {len(run['memory_violations'])}, bystander errors "
          f"{len(run['bystander_errors'])}, attacked-QP errors {len(run['attacked_errors'])}, "
          f"hang {run['hang']}; bystander messages {run['bystander_messages']:,}; attacked QPs "
          f"reconnected {run['attacked_reconnects']:,} times\n")
    print("### Frames per mutation class\n")
    print(table(sorted(run["frames_by_mutation"].items()), ["class", "frames"]) + "\n")
    print("### Node b's receive path\n")
    icrc = path.get("icrc_rx", {})
    rows = [(f"icrc_rx.{k}", v, "") for k, v in sorted(icrc.items()) if isinstance(v, int) and v]
    rows += [(f"parser: {k}", v, "") for k, v in path.get("parser_rejected", {}).items() if v]
    print(table(rows, ["counter", "value", "mlx5"]) + "\n")
    print("Responder verdicts (request packets; `hostile`: the bystanders' own requests, node a's "
          f"{path['node_a_request_packets']:,} request packets, taken out of `accepted`):\n")
    all_checks, hostile = path["request_checks"], path["request_checks_hostile"]
    print(table([(k, all_checks[k], hostile[k]) for k in all_checks],
                ["verdict", "all", "hostile"]) + "\n")
    transport = path.get("transport", {})
    keys = ["dropped_no_qp", "dropped_wrong_transport", "duplicate_request", "out_of_sequence",
            "naks_sent", "rnr_naks_sent", "resp_remote_access_errors", "resp_local_length_error",
            "key_rejections", "ghost_responses", "stale_naks", "packet_seq_err",
            "rnr_nak_retry_err", "implied_nak_seq_err", "local_ack_timeout_err"]
    print(table([(k, transport.get(k, "-"), MLX5.get(k, "")) for k in keys],
                ["transport counter (node b)", "value", "mlx5 name"]) + "\n")
    print("### Attacked QPs\n")
    print(table(sorted(run["attacked_completions"].items()), ["completion", "CQEs"]) + "\n")
    print(table(sorted(run["attacked_end_states"].items()), ["end state", "QPs"]))


if __name__ == "__main__":
    main()
