`resetall
`timescale 1ns / 1ps
`default_nettype none

// DMA request splitter: the RTL twin of the model's request-splitting rule
// (cut_into_tlps, model/nic/dma/split_engine.hpp). A request for `length`
// bytes at `address` leaves as TLP requests of at most MPS bytes (writes) or
// MRRS bytes (reads), each ending on a multiple of that size, so that none
// crosses a 4 KiB boundary and all after a short first one are aligned; at
// most `max_tlps` of them (a read needs a tag each). The last TLP of a
// request carries `last`. RCB governs the completer's side, not this block.
//
// Throughput: one TLP per cycle; a request is taken in the cycle after its
// previous request's last TLP leaves, and its first TLP is offered in the
// cycle after that.
module request_splitter #(
    // Test only: 1 ignores the size boundaries (cuts at the size alone), for
    // the scoreboard to catch.
    parameter int TEST_FAULT = 0
) (
    input wire clk_i,
    input wire rst_ni,

    // Configuration, held steady while requests flow: powers of two, 128 to
    // 4096 bytes (PCIe max payload size and max read request size).
    input wire [12:0] cfg_mps_bytes_i,
    input wire [12:0] cfg_mrrs_bytes_i,

    input  wire         s_req_valid_i,
    output logic        s_req_ready_o,
    input  wire         s_req_write_i,
    input  wire  [63:0] s_req_address_i,
    input  wire  [31:0] s_req_length_i,    // at least 1
    input  wire  [15:0] s_req_max_tlps_i,  // at least 1

    output logic        m_tlp_valid_o,
    input  wire         m_tlp_ready_i,
    output logic [63:0] m_tlp_address_o,
    output logic [12:0] m_tlp_length_o,
    output logic        m_tlp_last_o
);

  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
    $error("request_splitter: TEST_FAULT must be 0 or 1");
  end

  logic active_q;  // a request is being cut
  logic write_q;
  logic [63:0] address_q;  // of its next TLP
  logic [31:0] remaining_q;  // bytes not yet in a TLP
  logic [15:0] tlps_left_q;  // TLPs it may still have

  logic [12:0] max_bytes, room;

  always_comb begin
    max_bytes = write_q ? cfg_mps_bytes_i : cfg_mrrs_bytes_i;
    // Bytes up to the next multiple of the size.
    room = TEST_FAULT == 1 ? max_bytes : max_bytes - (address_q[12:0] & (max_bytes - 13'd1));
    m_tlp_length_o = remaining_q < {19'd0, room} ? remaining_q[12:0] : room;
    m_tlp_last_o = remaining_q == {19'd0, m_tlp_length_o} || tlps_left_q == 16'd1;
    m_tlp_valid_o = active_q;
    m_tlp_address_o = address_q;
    s_req_ready_o = !active_q;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      write_q <= 1'b0;
      address_q <= '0;
      remaining_q <= '0;
      tlps_left_q <= '0;
    end else if (s_req_valid_i && s_req_ready_o) begin
      active_q <= 1'b1;
      write_q <= s_req_write_i;
      address_q <= s_req_address_i;
      remaining_q <= s_req_length_i;
      tlps_left_q <= s_req_max_tlps_i;
    end else if (m_tlp_valid_o && m_tlp_ready_i) begin
      active_q <= !m_tlp_last_o;
      address_q <= address_q + {51'd0, m_tlp_length_o};
      remaining_q <= remaining_q - {19'd0, m_tlp_length_o};
      tlps_left_q <= tlps_left_q - 16'd1;
    end
  end

endmodule

`resetall
