	// verilator_coverage annotation
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
 653243	    input wire clk_i,
 000039	    input wire rst_ni,
	
	    // Configuration, held steady while requests flow: powers of two, 128 to
	    // 4096 bytes (PCIe max payload size and max read request size).
 000039	    input wire [12:0] cfg_mps_bytes_i,
 000039	    input wire [12:0] cfg_mrrs_bytes_i,
	
 131432	    input  wire         s_req_valid_i,
 023259	    output logic        s_req_ready_o,
 083887	    input  wire         s_req_write_i,
 5389108	    input  wire  [63:0] s_req_address_i,
 2627797	    input  wire  [31:0] s_req_length_i,    // at least 1
 1339304	    input  wire  [15:0] s_req_max_tlps_i,  // at least 1
	
 023220	    output logic        m_tlp_valid_o,
 131161	    input  wire         m_tlp_ready_i,
 860120	    output logic [63:0] m_tlp_address_o,
 151539	    output logic [12:0] m_tlp_length_o,
 018986	    output logic        m_tlp_last_o
	);
	
	  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
	    $error("request_splitter: TEST_FAULT must be 0 or 1");
	  end
	
 023220	  logic active_q;  // a request is being cut
 005798	  logic write_q;
 860120	  logic [63:0] address_q;  // of its next TLP
 546125	  logic [31:0] remaining_q;  // bytes not yet in a TLP
 505404	  logic [15:0] tlps_left_q;  // TLPs it may still have
	
 009835	  logic [12:0] max_bytes, room;
 143151	  verilator_coverage: (next point on previous line)

	
 1959924	  always_comb begin
 979962	    max_bytes = write_q ? cfg_mps_bytes_i : cfg_mrrs_bytes_i;
	    // Bytes up to the next multiple of the size.
 979962	    room = TEST_FAULT == 1 ? max_bytes : max_bytes - (address_q[12:0] & (max_bytes - 13'd1));
 979962	    m_tlp_length_o = remaining_q < {19'd0, room} ? remaining_q[12:0] : room;
 979962	    m_tlp_last_o = remaining_q == {19'd0, m_tlp_length_o} || tlps_left_q == 16'd1;
 979962	    m_tlp_valid_o = active_q;
 979962	    m_tlp_address_o = address_q;
 979962	    s_req_ready_o = !active_q;
	  end
	
 653282	  always_ff @(posedge clk_i) begin
 000156	    if (!rst_ni) begin
 000078	      active_q <= 1'b0;
 000078	      write_q <= 1'b0;
 000078	      address_q <= '0;
 000078	      remaining_q <= '0;
 000078	      tlps_left_q <= '0;
 023220	    end else if (s_req_valid_i && s_req_ready_o) begin
 011610	      active_q <= 1'b1;
 011610	      write_q <= s_req_write_i;
 011610	      address_q <= s_req_address_i;
 011610	      remaining_q <= s_req_length_i;
 011610	      tlps_left_q <= s_req_max_tlps_i;
 442120	    end else if (m_tlp_valid_o && m_tlp_ready_i) begin
 093893	    verilator_coverage: (next point on previous line)

 221060	      active_q <= !m_tlp_last_o;
 221060	      address_q <= address_q + {51'd0, m_tlp_length_o};
 221060	      remaining_q <= remaining_q - {19'd0, m_tlp_length_o};
 221060	      tlps_left_q <= tlps_left_q - 16'd1;
	    end
	  end
	
	endmodule
	
	`resetall
	
