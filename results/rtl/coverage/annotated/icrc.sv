	// verilator_coverage annotation
	`resetall
	`timescale 1ns / 1ps
	`default_nettype none
	
	// RoCEv2 Invariant CRC engine: the RTL twin of the model's ICRC block
	// (model/formats/icrc.cpp and locate_icrc in model/formats/frame.cpp).
	//
	// Takes an Ethernet frame (destination MAC first, no FCS) DATA_BYTES per
	// beat and gives one result per frame, the cycle after its last beat:
	// - roce:  the frame is RoCEv2 by its Ethernet (optionally one 802.1Q tag),
	//          IP and UDP headers, with lengths that hold together (locate_icrc);
	// - icrc:  the ICRC over 8 x 0xFF and the IP packet up to the ICRC field,
	//          with the variant fields read as ones (meaningful when roce);
	// - match: icrc equals the ICRC field the frame carries (when roce).
	// The ICRC field is found from the UDP length, so Ethernet padding after it
	// is ignored. Header fields are picked from the stream as they pass; a
	// field's position depends only on bytes before it, so each byte's mask and
	// whether it is covered are known when it arrives.
	//
	// Throughput: one beat per cycle, frames back to back. tkeep must be all ones
	// except on a frame's last beat, where it is contiguous from lane 0.
	module icrc #(
	    parameter int DATA_BYTES = 8,
	    // Test only: 1 leaves BTH byte 4 unmasked, for the scoreboard to catch.
	    parameter int TEST_FAULT = 0
	) (
 4411679	    input wire clk_i,
 000013	    input wire rst_ni,
	
 117482020	    input  wire [8*DATA_BYTES-1:0] s_frame_tdata_i,
 7949374	    input  wire [  DATA_BYTES-1:0] s_frame_tkeep_i,
 546945	    input  wire                    s_frame_tlast_i,
 845954	    input  wire                    s_frame_tvalid_i,
 024041	    output logic                   s_frame_tready_o,
	
 048614	    output logic        m_result_valid_o,
 845467	    input  wire         m_result_ready_i,
 010478	    output logic        m_result_roce_o,
 393996	    output logic [31:0] m_result_icrc_o,
 010292	    output logic        m_result_match_o
	);
	
	  if (DATA_BYTES < 2 || DATA_BYTES > 128) begin : g_bad_data_bytes
	    $error("icrc: DATA_BYTES must be 2 to 128");
	  end
	  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
	    $error("icrc: TEST_FAULT must be 0 or 1");
	  end
	
	  // Byte positions within a frame. A RoCEv2 frame's ICRC ends before byte
	  // 18 + 65535; longer frames saturate the counter (see frame_long_q).
	  localparam int PosW = 18;
	  localparam logic [PosW-1:0] PosMax = {PosW{1'b1}};
	  localparam logic [PosW-1:0] Beat = PosW'(DATA_BYTES);
	  localparam int CountW = $clog2(DATA_BYTES + 1);
	  localparam int LaneW = $clog2(DATA_BYTES);
	  // Every header field but the ICRC lies before this position (the UDP
	  // length ends by 18 + 60 + 6): later beats need not pick them.
	  localparam logic [PosW-1:0] HeaderBytes = PosW'(128);
	
	  localparam logic [15:0] EtherTypeIpv4 = 16'h0800;
	  localparam logic [15:0] EtherTypeIpv6 = 16'h86DD;
	  localparam logic [15:0] EtherTypeVlan = 16'h8100;
	  localparam logic [7:0] IpProtocolUdp = 8'd17;
	  localparam logic [15:0] RoceV2UdpPort = 16'd4791;
	  // UDP header, BTH and ICRC: the shortest UDP length a RoCEv2 packet has.
	  localparam logic [15:0] MinRoceUdpLength = 16'd24;
	
	  // zlib's CRC-32, reflected. One byte step is linear: the state shifted
	  // right by 8, XOR the CRC of the byte that left it XOR the data byte; and
	  // that CRC is the XOR of one column per set bit. Columns[32*j +: 32] is the
	  // CRC of bit j alone (the table entry of 1 << j).
%000000	  function automatic logic [8*32-1:0] crc32_columns();
	    logic [31:0] c;
%000000	    for (int j = 0; j < 8; j++) begin
%000000	    verilator_coverage: (next point on previous line)

%000000	      c = 32'd1 << j;
%000000	      for (int b = 0; b < 8; b++) c = c[0] ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
%000000	      verilator_coverage: (next point on previous line)

%000000	      crc32_columns[32*j+:32] = c;
	    end
	  endfunction
	  localparam logic [8*32-1:0] Crc32Columns = crc32_columns();
	
 3664590	  function automatic logic [31:0] crc32_byte(input logic [31:0] state, input logic [7:0] data);
	    logic [7:0] left;
 1832295	    left = state[7:0] ^ data;
 1832295	    crc32_byte = state >> 8;
 29316720	    for (int j = 0; j < 8; j++) crc32_byte = crc32_byte ^ ({32{left[j]}} & Crc32Columns[32*j+:32]);
 1832295	    verilator_coverage: (next point on previous line)

	  endfunction
	
	  // A whole beat at once: the CRC step is linear, so the state after a beat
	  // of payload is the XOR of one column per set bit of {state, beat}. Column
	  // of beat bit 8p+b: byte p's bit b alone, then the DATA_BYTES-1-p zero
	  // bytes after it; column of state bit k: state bit k alone through
	  // DATA_BYTES zero bytes. Grouped by nibble, that is the XOR of one table
	  // entry per nibble of {state, beat}: entry v of a nibble's table is the XOR
	  // of the columns of v's set bits. Crc32BeatTables[512*n +: 512] is nibble
	  // n's table (entry v at [32*v +: 32]): the beat's nibbles first, then the
	  // state's 8.
	  localparam int BeatInputs = 8 * DATA_BYTES + 32;
	  localparam int BeatNibbles = BeatInputs / 4;
%000000	  function automatic logic [512*BeatNibbles-1:0] crc32_beat_tables();
	    logic [32*BeatInputs-1:0] columns;  // input bit i's at [32*i +: 32]
	    logic [8*32-1:0] byte_columns;  // one per bit of a byte, as Crc32Columns
	    logic [31:0] entry;
%000000	    byte_columns = Crc32Columns;
%000000	    for (int p = DATA_BYTES - 1; p >= 0; p--) begin
%000000	    verilator_coverage: (next point on previous line)

%000000	      for (int b = 0; b < 8; b++) begin
%000000	      verilator_coverage: (next point on previous line)

%000000	        columns[32*(8*p+b)+:32] = byte_columns[32*b+:32];
%000000	        byte_columns[32*b+:32] = crc32_byte(byte_columns[32*b+:32], 8'h00);
	      end
	    end
%000000	    for (int k = 0; k < 32; k++) begin
%000000	    verilator_coverage: (next point on previous line)

%000000	      entry = 32'd1 << k;
%000000	      for (int p = 0; p < DATA_BYTES; p++) entry = crc32_byte(entry, 8'h00);
%000000	      verilator_coverage: (next point on previous line)

%000000	      columns[32*(8*DATA_BYTES+k)+:32] = entry;
	    end
%000000	    for (int n = 0; n < BeatNibbles; n++) begin
%000000	    verilator_coverage: (next point on previous line)

%000000	      for (int v = 0; v < 16; v++) begin
%000000	      verilator_coverage: (next point on previous line)

%000000	        entry = '0;
%000000	        for (int b = 0; b < 4; b++) if (v[b]) entry = entry ^ columns[32*(4*n+b)+:32];
%000000	        verilator_coverage: (next point on previous line)

%000000	        verilator_coverage: (next point on previous line)

%000000	        verilator_coverage: (next point on previous line)

%000000	        crc32_beat_tables[512*n+32*v+:32] = entry;
	      end
	    end
	  endfunction
	  localparam logic [512*BeatNibbles-1:0] Crc32BeatTables = crc32_beat_tables();
	
	  // Entry v of one nibble's table. Given a constant slice of
	  // Crc32BeatTables, Verilator makes it one load from a constant array.
 92807584	  function automatic logic [31:0] table_entry(input logic [511:0] nibble_table,
	                                              input logic [3:0] v);
 46403792	    table_entry = nibble_table[{v, 5'd0}+:32];
	  endfunction
	
	  // The state after zlib's initial ones and the 8 x 0xFF of the masked LRH.
	  localparam logic [31:0] LrhState = 32'hDEBB20E3;
	
 3101224	  logic [PosW-1:0] beat_pos_q;  // position of lane 0
 000012	  logic frame_long_q;  // the frame has passed PosMax - 2 x DATA_BYTES bytes
 23032364	  logic [31:0] crc_q;
	  // Header bytes picked so far (zero until they pass).
 195602	  logic [15:0] outer_type_q, inner_type_q, ip_length_q, udp_port_q, udp_length_q;
 268510	  verilator_coverage: (next point on previous line)

 189918	  verilator_coverage: (next point on previous line)

 375304	  verilator_coverage: (next point on previous line)

 187036	  verilator_coverage: (next point on previous line)

 168088	  logic [7:0] ip_first_q, ip_protocol_q;
 100144	  verilator_coverage: (next point on previous line)

 400746	  logic [31:0] icrc_field_q;
	
	  // The byte at frame position `at`: from this beat if it is here, else
	  // `held`. It reads the beat from the ports rather than taking it as an
	  // argument, which a simulator would copy whole into every call.
 7251696	  function automatic logic [7:0] pick(input logic [PosW-1:0] at, input logic [7:0] held);
	    logic [PosW-1:0] lane;
 3625848	    lane = at - beat_pos_q;
 3625848	    pick = held;
 834112	    if (at >= beat_pos_q && lane < Beat && s_frame_tkeep_i[lane[LaneW-1:0]])
 3208792	    verilator_coverage: (next point on previous line)

 417056	      pick = s_frame_tdata_i[{lane[LaneW-1:0], 3'd0}+:8];
	  endfunction
	
	  // The same for a byte of the headers, all before HeaderBytes: a beat past
	  // them need not look.
 38267400	  function automatic logic [7:0] pick_header(input logic [PosW-1:0] at, input logic [7:0] held);
 19133700	    pick_header = held;
 5007192	    if (beat_pos_q < HeaderBytes) pick_header = pick(at, held);
 16630104	    verilator_coverage: (next point on previous line)

	  endfunction
	
	  // The state after a beat of payload. A function, so that a simulator keeps
	  // the sum in a register rather than in the module; it takes the state as
	  // an argument because yosys 0.23 evaluates a call without one as a
	  // constant.
 2627824	  function automatic logic [31:0] crc32_beat(input logic [31:0] state);
 1313912	    crc32_beat = '0;
 35892496	    for (int p = 0; p < DATA_BYTES; p++) begin
 1313912	    verilator_coverage: (next point on previous line)

 17946248	      for (int h = 0; h < 2; h++) begin
 71784992	      verilator_coverage: (next point on previous line)

 35892496	        crc32_beat = crc32_beat ^ table_entry(Crc32BeatTables[512*(2*p+h)+:512],
 35892496	                                              s_frame_tdata_i[8*p+4*h+:4]);
	      end
	    end
 21022592	    for (int q = 0; q < 8; q++) begin
 1313912	    verilator_coverage: (next point on previous line)

 10511296	      crc32_beat = crc32_beat ^ table_entry(Crc32BeatTables[512*(2*DATA_BYTES+q)+:512],
 10511296	                                            state[4*q+:4]);
	    end
	  endfunction
	
	  // The state after any other beat, lane by lane: each byte the ICRC covers,
	  // with its mask. A function, for the same reason as crc32_beat.
 561126	  function automatic logic [31:0] crc32_lanes(input logic ipv6, input logic [PosW-1:0] ip_offset,
	                                              input logic [PosW-1:0] ip_header_bytes,
	                                              input logic [PosW-1:0] udp_offset,
	                                              input logic [PosW-1:0] icrc_offset);
	    logic [PosW-1:0] at, from_ip;
	    logic [7:0] mask;
 280563	    crc32_lanes = crc_q;
 9431344	    for (int i = 0; i < DATA_BYTES; i++) begin
 280563	    verilator_coverage: (next point on previous line)

 4715672	      at = beat_pos_q + PosW'(i);
	      // Covered: from the IP header to the ICRC field. Up to the UDP length
	      // every IP byte is (a RoCEv2 UDP length is at least 24).
 3664590	      if (s_frame_tkeep_i[i] && at >= ip_offset && (at < udp_offset + 6 || at < icrc_offset)) begin
 2883377	      verilator_coverage: (next point on previous line)

 1832295	        from_ip = at - ip_offset;
 1832295	        mask = 8'h00;
 1978998	        if (ipv6) begin
 842796	        verilator_coverage: (next point on previous line)

 021674	          if (from_ip == 0) mask = 8'h0F;  // traffic class, high nibble
 978662	          verilator_coverage: (next point on previous line)

 064962	          if (from_ip >= 1 && from_ip <= 3) mask = 8'hFF;  // traffic class, flow label
 957018	          verilator_coverage: (next point on previous line)

 021594	          if (from_ip == 7) mask = 8'hFF;  // hop limit
 978702	          verilator_coverage: (next point on previous line)

 842796	        end else begin
 054936	          if (from_ip == 1 || from_ip == 8) mask = 8'hFF;  // TOS, TTL
 815328	          verilator_coverage: (next point on previous line)

 054764	          if (from_ip == 10 || from_ip == 11) mask = 8'hFF;  // header checksum
 815414	          verilator_coverage: (next point on previous line)

	        end
 095960	        if (from_ip == ip_header_bytes + 6 || from_ip == ip_header_bytes + 7)
 1784315	        verilator_coverage: (next point on previous line)

 047980	          mask = 8'hFF;  // UDP checksum
 046968	        if (TEST_FAULT != 1 && from_ip == ip_header_bytes + 12) mask = 8'hFF;  // BTH byte 4
 1808811	        verilator_coverage: (next point on previous line)

 1832295	        crc32_lanes = crc32_byte(crc32_lanes, s_frame_tdata_i[8*i+:8] | mask);
	      end
	    end
	  endfunction
	
	  assign s_frame_tready_o = !m_result_valid_o || m_result_ready_i;
	
	  // Everything happens at the clock edge that takes a beat: the header
	  // fields as of this beat, the CRC over it, and on a last beat the result.
	  // (Computed here rather than in an always_comb so that a simulator works
	  // it out once per beat, not again whenever an input changes.)
 4411692	  always_ff @(posedge clk_i) begin : take_beat
	    logic [15:0] outer_type, inner_type, ether_type, ip_length, udp_port, udp_length;
	    logic [7:0] ip_first, ip_protocol;
	    logic [31:0] icrc_field, crc;
	    logic vlan, ipv6, roce;
	    logic [PosW-1:0] ip_offset, ip_header_bytes, udp_offset, icrc_offset, frame_bytes;
	    logic [PosW-1:0] ip_payload_bytes;
	    logic [CountW-1:0] beat_bytes;
	
 000052	    if (!rst_ni) begin
 2205820	    verilator_coverage: (next point on previous line)

 000026	      m_result_valid_o <= 1'b0;
 000026	      m_result_roce_o <= 1'b0;
 000026	      m_result_icrc_o <= '0;
 000026	      m_result_match_o <= 1'b0;
 2205820	    end else begin
 3204584	      if (m_result_ready_i) m_result_valid_o <= 1'b0;
 603528	      verilator_coverage: (next point on previous line)

 3188950	      if (s_frame_tvalid_i && s_frame_tready_o) begin
 611345	      verilator_coverage: (next point on previous line)

 1594475	        outer_type = {
 1594475	          pick_header(PosW'(12), outer_type_q[15:8]),
 1594475	          pick_header(PosW'(13), outer_type_q[7:0])
	        };
 1594475	        vlan = outer_type == EtherTypeVlan;
 1594475	        inner_type = {
 1594475	          pick_header(PosW'(16), inner_type_q[15:8]),
 1594475	          pick_header(PosW'(17), inner_type_q[7:0])
	        };
 1594475	        ether_type = vlan ? inner_type : outer_type;
 1594475	        ipv6 = ether_type == EtherTypeIpv6;
 1594475	        ip_offset = vlan ? PosW'(18) : PosW'(14);
	
 1594475	        ip_first = pick_header(ip_offset, ip_first_q);
 1594475	        ip_header_bytes = ipv6 ? PosW'(40) : {{(PosW - 6) {1'b0}}, ip_first[3:0], 2'b00};
	        // IPv4 total length (bytes 2-3) or IPv6 payload length (bytes 4-5).
 1594475	        ip_length = {
 1594475	          pick_header(ip_offset + (ipv6 ? PosW'(4) : PosW'(2)), ip_length_q[15:8]),
 1594475	          pick_header(ip_offset + (ipv6 ? PosW'(5) : PosW'(3)), ip_length_q[7:0])
	        };
 1594475	        ip_protocol = pick_header(ip_offset + (ipv6 ? PosW'(6) : PosW'(9)), ip_protocol_q);
	
 1594475	        udp_offset = ip_offset + ip_header_bytes;
 1594475	        udp_port = {
 1594475	          pick_header(udp_offset + PosW'(2), udp_port_q[15:8]),
 1594475	          pick_header(udp_offset + PosW'(3), udp_port_q[7:0])
	        };
 1594475	        udp_length = {
 1594475	          pick_header(udp_offset + PosW'(4), udp_length_q[15:8]),
 1594475	          pick_header(udp_offset + PosW'(5), udp_length_q[7:0])
	        };
	        // Before the UDP length has passed this points too early; the bytes
	        // it picks then are picked again when the real field passes.
 1594475	        icrc_offset = udp_offset + {{(PosW - 16) {1'b0}}, udp_length} - PosW'(4);
	
	        // A whole beat of payload: past the last masked byte (BTH byte 4),
	        // so every field that places the ICRC field has passed, and before
	        // that field, so every byte is covered and none masked.
 2627824	        if (beat_pos_q > udp_offset + PosW'(12) && beat_pos_q + Beat <= icrc_offset &&
 280563	        verilator_coverage: (next point on previous line)

 1313912	            !s_frame_tlast_i) begin
 1313912	          crc = crc32_beat(crc_q);
 1313912	          icrc_field = icrc_field_q;
 280563	        end else begin
 280563	          for (int k = 0; k < 4; k++) begin
 2244504	          verilator_coverage: (next point on previous line)

 1122252	            icrc_field[8*k+:8] = pick(icrc_offset + PosW'(k), icrc_field_q[8*k+:8]);
	          end
 280563	          crc = crc32_lanes(ipv6, ip_offset, ip_header_bytes, udp_offset, icrc_offset);
	        end
	
 049688	        if (s_frame_tlast_i) begin
 1569631	        verilator_coverage: (next point on previous line)

 024844	          beat_bytes = '0;
 024844	          for (int i = 0; i < DATA_BYTES; i++)
 1766368	          verilator_coverage: (next point on previous line)

 883184	            beat_bytes = beat_bytes + CountW'(s_frame_tkeep_i[i]);
 024844	          frame_bytes = beat_pos_q + {{(PosW - CountW) {1'b0}}, beat_bytes};
 024844	          ip_payload_bytes = ipv6 ? {{(PosW - 16) {1'b0}}, ip_length}
 024844	                                  : {{(PosW - 16) {1'b0}}, ip_length} - ip_header_bytes;
	          // locate_icrc's checks.
 024844	          roce = (ipv6 && ip_first[7:4] == 4'd6) ||
 024844	              (ether_type == EtherTypeIpv4 && ip_first[7:4] == 4'd4 && ip_first[3:0] >= 4'd5 &&
 024844	               {{(PosW - 16) {1'b0}}, ip_length} >= ip_header_bytes);
 024844	          roce = roce && ip_protocol == IpProtocolUdp && udp_port == RoceV2UdpPort &&
 024844	              udp_length >= MinRoceUdpLength &&
 024844	              {{(PosW - 16) {1'b0}}, udp_length} == ip_payload_bytes &&
 024844	              (frame_long_q || udp_offset + ip_payload_bytes <= frame_bytes);
 024844	          m_result_valid_o <= 1'b1;
 024844	          m_result_roce_o <= roce;
 024844	          m_result_icrc_o <= ~crc;
 024844	          m_result_match_o <= ~crc == icrc_field;
 1569631	        end else begin
	          // Stop short enough that no lane's position wraps.
 038038	          if (beat_pos_q > PosMax - 2 * Beat) frame_long_q <= 1'b1;
 1550612	          verilator_coverage: (next point on previous line)

 1550612	          else beat_pos_q <= beat_pos_q + Beat;
 1569631	          crc_q <= crc;
 1569631	          outer_type_q <= outer_type;
 1569631	          inner_type_q <= inner_type;
 1569631	          ip_first_q <= ip_first;
 1569631	          ip_length_q <= ip_length;
 1569631	          ip_protocol_q <= ip_protocol;
 1569631	          udp_port_q <= udp_port;
 1569631	          udp_length_q <= udp_length;
 1569631	          icrc_field_q <= icrc_field;
	        end
	      end
	    end
	    // After a reset and after a frame's last beat, the next frame starts
	    // from nothing.
 049740	    if (!rst_ni || (s_frame_tvalid_i && s_frame_tready_o && s_frame_tlast_i)) begin
 2180976	    verilator_coverage: (next point on previous line)

 024870	      beat_pos_q <= '0;
 024870	      frame_long_q <= 1'b0;
 024870	      crc_q <= LrhState;
 024870	      outer_type_q <= '0;
 024870	      inner_type_q <= '0;
 024870	      ip_first_q <= '0;
 024870	      ip_length_q <= '0;
 024870	      ip_protocol_q <= '0;
 024870	      udp_port_q <= '0;
 024870	      udp_length_q <= '0;
 024870	      icrc_field_q <= '0;
	    end
	  end
	
	endmodule
	
	`resetall
	
