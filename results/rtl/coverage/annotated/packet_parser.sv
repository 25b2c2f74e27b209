	// verilator_coverage annotation
	`resetall
	`timescale 1ns / 1ps
	`default_nettype none
	
	// RoCEv2 receive parser: the RTL twin of the model's PacketParser
	// (parse_frame with the ICRC left to the ICRC block, model/formats/frame.cpp).
	//
	// Takes an Ethernet frame (destination MAC first, no FCS) DATA_BYTES per
	// beat and gives one descriptor per frame (packet_parser_pkg::descriptor_t,
	// generated from descriptor.fields), the cycle after its last beat: the
	// Ethernet/802.1Q, IPv4 or IPv6, UDP, BTH and extended-header fields, where
	// the payload lies in the frame, and either `ok` or the model's ParseError
	// code of the first check that fails, in the model's order.
	//
	// Every header field lies within the first 128 bytes (18 Ethernet + 60 IPv4
	// + 8 UDP + 12 BTH + 28 AtomicETH = 126), so the parser keeps those bytes as
	// they pass and decides at the last beat, when the frame's length is known
	// (the IP lengths are checked against it). Later beats are only counted.
	//
	// Throughput: one beat per cycle, frames back to back. tkeep must be all ones
	// except on a frame's last beat, where it is contiguous from lane 0.
	module packet_parser #(
	    parameter int DATA_BYTES = 8,
	    // Test only: 1 skips the IPv4 header checksum check, for the scoreboard
	    // to catch.
	    parameter int TEST_FAULT = 0
	) (
 5668377	    input wire clk_i,
 000015	    input wire rst_ni,
	
 147244860	    input  wire [8*DATA_BYTES-1:0] s_frame_tdata_i,
 10066762	    input  wire [  DATA_BYTES-1:0] s_frame_tkeep_i,
 717424	    input  wire                    s_frame_tlast_i,
 1107346	    input  wire                    s_frame_tvalid_i,
 031739	    output logic                   s_frame_tready_o,
	
 064350	    output logic                                      m_desc_valid_o,
 1105993	    input  wire                                       m_desc_ready_i,
 8930796	    output logic [packet_parser_pkg::DescriptorBits-1:0] m_desc_o
	);
	
	  if (DATA_BYTES < 8 || DATA_BYTES > 128 || (DATA_BYTES & (DATA_BYTES - 1)) != 0)
	  begin : g_bad_data_bytes
	    $error("packet_parser: DATA_BYTES must be a power of two from 8 to 128");
	  end
	  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
	    $error("packet_parser: TEST_FAULT must be 0 or 1");
	  end
	
	  localparam int WindowBytes = 128;
	  localparam int WindowW = 8 * WindowBytes;
	  // Byte positions within a frame. Frames longer than PosMax saturate the
	  // count; every length a header can state is far below it.
	  localparam int PosW = 18;
	  localparam logic [PosW-1:0] PosMax = {PosW{1'b1}};
	  localparam logic [PosW-1:0] Beat = PosW'(DATA_BYTES);
	  localparam int CountW = $clog2(DATA_BYTES + 1);
	
	  localparam logic [15:0] EtherTypeIpv4 = 16'h0800;
	  localparam logic [15:0] EtherTypeIpv6 = 16'h86DD;
	  localparam logic [15:0] EtherTypeVlan = 16'h8100;
	  localparam logic [7:0] IpProtocolUdp = 8'd17;
	  localparam logic [15:0] RoceV2UdpPort = 16'd4791;
	
	  // The model's ParseError values (model/formats/frame.hpp); the scoreboard
	  // compares them as numbers.
	  localparam logic [3:0] ErrTruncatedEthernet = 4'd0;
	  localparam logic [3:0] ErrUnsupportedEtherType = 4'd1;
	  localparam logic [3:0] ErrIpVersion = 4'd2;
	  localparam logic [3:0] ErrIpv4Checksum = 4'd3;
	  localparam logic [3:0] ErrIpLength = 4'd4;
	  localparam logic [3:0] ErrIpv4Fragment = 4'd5;
	  localparam logic [3:0] ErrNotUdp = 4'd6;
	  localparam logic [3:0] ErrUdpPort = 4'd7;
	  localparam logic [3:0] ErrUdpLength = 4'd8;
	  localparam logic [3:0] ErrBthVersion = 4'd9;
	  localparam logic [3:0] ErrUnsupportedOpcode = 4'd10;
	  localparam logic [3:0] ErrHeaderLength = 4'd11;
	  localparam logic [3:0] ErrPad = 4'd12;
	  localparam logic [3:0] ErrPayloadLength = 4'd13;
	
	  // Payload rules (model/formats/opcodes.hpp PayloadRule).
	  localparam logic [1:0] PayloadNone = 2'd0;
	  localparam logic [1:0] PayloadExactlyPmtu = 2'd1;
	  localparam logic [1:0] PayloadOneToPmtu = 2'd2;
	  localparam logic [1:0] PayloadZeroToPmtu = 2'd3;
	  localparam logic [15:0] MaxPmtu = 16'd4096;
	
	  // The header bytes are kept first byte most significant, as they are on
	  // the wire, so a big-endian field is a constant slice: `n` bytes from byte
	  // `at` of window `w`, which is `bytes` long.
	  `define PACKET_PARSER_FIELD(w, bytes, at, n) w[8*((bytes)-(at))-1-:8*(n)]
	  // From the IP header: up to 60 IPv4 bytes, then UDP, BTH and extended
	  // headers (110 = 128 - 18); from the UDP header: UDP 8, BTH 12, extended
	  // headers 28; the extended headers alone.
	  localparam int IpBytes = 110;
	  localparam int UdpBytes = 48;
	  localparam int ExtBytes = 28;
	  `define PACKET_PARSER_IP(at, n) `PACKET_PARSER_FIELD(ip_window, IpBytes, at, n)
	  `define PACKET_PARSER_UDP(at, n) `PACKET_PARSER_FIELD(udp_window, UdpBytes, at, n)
	  `define PACKET_PARSER_EXT(at, n) `PACKET_PARSER_FIELD(ext_window, ExtBytes, at, n)
	
 3963338	  logic [PosW-1:0] beat_pos_q;  // position of lane 0
 000012	  logic frame_long_q;  // the frame has passed PosMax - 2 x DATA_BYTES bytes
 26271830	  logic [WindowW-1:0] window_q;  // the frame's first bytes, zero until they pass
	  // The descriptor being worked out, a variable of take_beat alone. Declared
	  // here because yosys 0.23 cannot name a struct field of a variable declared
	  // inside a block; hence the BLKSEQ waiver below.
 8930796	  packet_parser_pkg::descriptor_t d;
	
	  assign s_frame_tready_o = !m_desc_valid_o || m_desc_ready_i;
	
	  // Everything happens at the clock edge that takes a beat; on a last beat
	  // the whole decision. (In the clocked block rather than an always_comb so
	  // that a simulator works it out once per frame, not on every input change.)
	  /* verilator lint_off BLKSEQ */
 5668392	  always_ff @(posedge clk_i) begin : take_beat
	    logic [WindowW-1:0] window;
	    logic [8*IpBytes-1:0] ip_window;
	    logic [8*UdpBytes-1:0] udp_window;
	    logic [8*ExtBytes-1:0] ext_window;
	    logic [8*DATA_BYTES-1:0] kept;
	    logic [31:0] ip_first_word;
	    logic [7:0] bth_byte1, bth_byte4, bth_byte8;
	    logic [CountW-1:0] beat_bytes;
	    logic [PosW-1:0] frame_bytes, ip_offset, ip_available, ip_header_bytes, ip_payload_bytes;
	    logic [PosW-1:0] udp_length, data_bytes, ext_bytes, pad;
	    logic [3:0] ip_words;
	    logic [20:0] checksum_sum;
	    logic [1:0] rule;
	    logic [4:0] imm_at;
	    logic known, failed, exact_pmtu;
	    logic [3:0] error;
	
 000060	    if (!rst_ni) begin
 2834166	    verilator_coverage: (next point on previous line)

 000030	      m_desc_valid_o <= 1'b0;
 000030	      m_desc_o <= '0;
 2834166	    end else begin
 4089234	      if (m_desc_ready_i) m_desc_valid_o <= 1'b0;
 789549	      verilator_coverage: (next point on previous line)

 4067268	      if (s_frame_tvalid_i && s_frame_tready_o) begin
 800532	      verilator_coverage: (next point on previous line)

 2033634	        window = window_q;
 558438	        if (beat_pos_q < PosW'(WindowBytes)) begin
 1754415	        verilator_coverage: (next point on previous line)

	          // Lane 0 is the beat's first byte: most significant in the window.
 279219	          for (int i = 0; i < DATA_BYTES; i++)
 7826608	          verilator_coverage: (next point on previous line)

 3913304	            kept[8*(DATA_BYTES-1-i)+:8] = s_frame_tkeep_i[i] ? s_frame_tdata_i[8*i+:8] : 8'h00;
 279219	          window[WindowW-1-32'({beat_pos_q[6:0], 3'd0})-:8*DATA_BYTES] = kept;
	        end
	
 4001376	        if (!s_frame_tlast_i) begin
 032946	        verilator_coverage: (next point on previous line)

 2000688	          window_q <= window;
	          // Stop short enough that no lane's position wraps.
 038038	          if (beat_pos_q > PosMax - 2 * Beat) frame_long_q <= 1'b1;
 1981669	          verilator_coverage: (next point on previous line)

 1981669	          else beat_pos_q <= beat_pos_q + Beat;
 032946	        end else begin
 032946	          beat_bytes = '0;
 032946	          for (int i = 0; i < DATA_BYTES; i++)
 2260112	          verilator_coverage: (next point on previous line)

 1130056	            beat_bytes = beat_bytes + CountW'(s_frame_tkeep_i[i]);
 032946	          frame_bytes = frame_long_q ? PosMax
 032946	                                     : beat_pos_q + {{(PosW - CountW) {1'b0}}, beat_bytes};
	
 032946	          d = '0;
 032946	          failed = 1'b0;
 032946	          error = '0;
	
	          // Ethernet and its optional 802.1Q tag.
 032946	          d.eth_destination = `PACKET_PARSER_FIELD(window, WindowBytes, 0, 6);
 032946	          d.eth_source = `PACKET_PARSER_FIELD(window, WindowBytes, 6, 6);
 032946	          d.vlan_present = `PACKET_PARSER_FIELD(window, WindowBytes, 12, 2) == EtherTypeVlan;
 032946	          d.vlan_tci = d.vlan_present ? `PACKET_PARSER_FIELD(window, WindowBytes, 14, 2) : 16'd0;
 032946	          d.ether_type = d.vlan_present ? `PACKET_PARSER_FIELD(window, WindowBytes, 16, 2)
 032946	                                        : `PACKET_PARSER_FIELD(window, WindowBytes, 12, 2);
 032946	          ip_offset = d.vlan_present ? PosW'(18) : PosW'(14);
 000970	          if (frame_bytes < ip_offset) begin
 032461	          verilator_coverage: (next point on previous line)

 000485	            failed = 1'b1;
 000485	            error = ErrTruncatedEthernet;
	          end
 032946	          d.ipv6 = d.ether_type == EtherTypeIpv6;
 002140	          if (!failed && !d.ipv6 && d.ether_type != EtherTypeIpv4) begin
 031876	          verilator_coverage: (next point on previous line)

 001070	            failed = 1'b1;
 001070	            error = ErrUnsupportedEtherType;
	          end
	
	          // IP.
 032946	          ip_window = d.vlan_present ? `PACKET_PARSER_FIELD(window, WindowBytes, 18, IpBytes)
 032946	                                     : `PACKET_PARSER_FIELD(window, WindowBytes, 14, IpBytes);
 032946	          ip_first_word = `PACKET_PARSER_IP(0, 4);
 032946	          ip_available = frame_bytes - ip_offset;
 000074	          if (!failed && ip_available == 0) begin
 032909	          verilator_coverage: (next point on previous line)

 000037	            failed = 1'b1;
 000037	            error = ErrIpLength;
	          end
 002036	          if (!failed && ip_first_word[31:28] != (d.ipv6 ? 4'd6 : 4'd4)) begin
 031928	          verilator_coverage: (next point on previous line)

 001018	            failed = 1'b1;
 001018	            error = ErrIpVersion;
	          end
 032946	          ip_words = d.ipv6 ? 4'd10 : ip_first_word[27:24];
 032946	          ip_header_bytes = {{(PosW - 6) {1'b0}}, ip_words, 2'b00};
 029460	          if (d.ipv6) begin
 018216	          verilator_coverage: (next point on previous line)

	            // Version(4) traffic class(8) flow label(20) in the first word.
 014730	            d.ipv6_traffic_class = ip_first_word[27:20];
 014730	            d.ipv6_flow_label = ip_first_word[19:0];
 014730	            d.ipv6_payload_length = `PACKET_PARSER_IP(4, 2);
 014730	            d.ipv6_next_header = `PACKET_PARSER_IP(6, 1);
 014730	            d.ipv6_hop_limit = `PACKET_PARSER_IP(7, 1);
 014730	            d.ip_source_high = `PACKET_PARSER_IP(8, 8);
 014730	            d.ip_source_low = `PACKET_PARSER_IP(16, 8);
 014730	            d.ip_destination_high = `PACKET_PARSER_IP(24, 8);
 014730	            d.ip_destination_low = `PACKET_PARSER_IP(32, 8);
 002702	            if (!failed && (ip_available < ip_header_bytes ||
 013379	            verilator_coverage: (next point on previous line)

 001351	                {2'b00, d.ipv6_payload_length} > ip_available - ip_header_bytes)) begin
 001351	              failed = 1'b1;
 001351	              error = ErrIpLength;
	            end
 014730	            ip_payload_bytes = {2'b00, d.ipv6_payload_length};
 018216	          end else begin
 018216	            d.ipv4_tos = `PACKET_PARSER_IP(1, 1);
 018216	            d.ipv4_total_length = `PACKET_PARSER_IP(2, 2);
 018216	            d.ipv4_identification = `PACKET_PARSER_IP(4, 2);
 018216	            d.ipv4_flags_fragment = `PACKET_PARSER_IP(6, 2);
 018216	            d.ipv4_ttl = `PACKET_PARSER_IP(8, 1);
 018216	            d.ipv4_protocol = `PACKET_PARSER_IP(9, 1);
 018216	            d.ipv4_checksum = `PACKET_PARSER_IP(10, 2);
 018216	            d.ip_source_low = {32'd0, `PACKET_PARSER_IP(12, 4)};
 018216	            d.ip_destination_low = {32'd0, `PACKET_PARSER_IP(16, 4)};
 000680	            if (!failed && (ip_words < 4'd5 || ip_available < ip_header_bytes)) begin
 017876	            verilator_coverage: (next point on previous line)

 000340	              failed = 1'b1;
 000340	              error = ErrIpLength;
	            end
	            // RFC 1071: the header's 16-bit words, the checksum included,
	            // sum to 0xFFFF in one's complement. 30 words fit in 21 bits;
	            // two folds bring the sum back to 16.
 018216	            checksum_sum = '0;
 018216	            for (int k = 0; k < 30; k++)
 1092960	            verilator_coverage: (next point on previous line)

 397488	              if (5'(k) < {ip_words, 1'b0}) checksum_sum = checksum_sum + 21'(`PACKET_PARSER_IP(2 * k, 2));
 347736	              verilator_coverage: (next point on previous line)

 018216	            checksum_sum = {5'd0, checksum_sum[15:0]} + {16'd0, checksum_sum[20:16]};
 018216	            checksum_sum = {5'd0, checksum_sum[15:0]} + {16'd0, checksum_sum[20:16]};
 002892	            if (!failed && TEST_FAULT != 1 && checksum_sum != 21'hFFFF) begin
 016770	            verilator_coverage: (next point on previous line)

 001446	              failed = 1'b1;
 001446	              error = ErrIpv4Checksum;
	            end
 001912	            if (!failed && ({2'b00, d.ipv4_total_length} < ip_header_bytes ||
 017260	            verilator_coverage: (next point on previous line)

 000956	                            {2'b00, d.ipv4_total_length} > ip_available)) begin
 000956	              failed = 1'b1;
 000956	              error = ErrIpLength;
	            end
	            // More-fragments flag or a fragment offset.
 000718	            if (!failed && (d.ipv4_flags_fragment & 16'h3FFF) != 0) begin
 017857	            verilator_coverage: (next point on previous line)

 000359	              failed = 1'b1;
 000359	              error = ErrIpv4Fragment;
	            end
 018216	            ip_payload_bytes = {2'b00, d.ipv4_total_length} - ip_header_bytes;
	          end
 003372	          if (!failed && (d.ipv6 ? d.ipv6_next_header : d.ipv4_protocol) != IpProtocolUdp) begin
 031260	          verilator_coverage: (next point on previous line)

 001686	            failed = 1'b1;
 001686	            error = ErrNotUdp;
	          end
	
	          // UDP, at a multiple of 4 bytes after the IP header's start.
 032946	          udp_window = ip_window[8*IpBytes-1-32'({ip_words, 5'd0})-:8*UdpBytes];
 032946	          d.udp_source_port = `PACKET_PARSER_UDP(0, 2);
 032946	          d.udp_destination_port = `PACKET_PARSER_UDP(2, 2);
 032946	          d.udp_length = `PACKET_PARSER_UDP(4, 2);
 032946	          d.udp_checksum = `PACKET_PARSER_UDP(6, 2);
 032946	          udp_length = {2'b00, d.udp_length};
 000018	          if (!failed && ip_payload_bytes < PosW'(8)) begin
 032937	          verilator_coverage: (next point on previous line)

 000009	            failed = 1'b1;
 000009	            error = ErrUdpLength;
	          end
 002848	          if (!failed && d.udp_destination_port != RoceV2UdpPort) begin
 031522	          verilator_coverage: (next point on previous line)

 001424	            failed = 1'b1;
 001424	            error = ErrUdpPort;
	          end
	          // UDP header, BTH and ICRC at least.
 003016	          if (!failed && (udp_length != ip_payload_bytes || udp_length < PosW'(24))) begin
 031438	          verilator_coverage: (next point on previous line)

 001508	            failed = 1'b1;
 001508	            error = ErrUdpLength;
	          end
	
	          // BTH.
 032946	          d.bth_opcode = `PACKET_PARSER_UDP(8, 1);
 032946	          bth_byte1 = `PACKET_PARSER_UDP(9, 1);
 032946	          d.bth_solicited_event = bth_byte1[7];
 032946	          d.bth_mig_req = bth_byte1[6];
 032946	          d.bth_pad_count = bth_byte1[5:4];
 032946	          d.bth_tver = bth_byte1[3:0];
 032946	          d.bth_pkey = `PACKET_PARSER_UDP(10, 2);
 032946	          bth_byte4 = `PACKET_PARSER_UDP(12, 1);
 032946	          d.bth_fecn = bth_byte4[7];
 032946	          d.bth_becn = bth_byte4[6];
 032946	          d.bth_resv6a = bth_byte4[5:0];
 032946	          d.bth_dest_qp = `PACKET_PARSER_UDP(13, 3);
 032946	          bth_byte8 = `PACKET_PARSER_UDP(16, 1);
 032946	          d.bth_ack_req = bth_byte8[7];
 032946	          d.bth_resv7 = bth_byte8[6:0];
 032946	          d.bth_psn = `PACKET_PARSER_UDP(17, 3);
 001504	          if (!failed && d.bth_tver != 0) begin
 032194	          verilator_coverage: (next point on previous line)

 000752	            failed = 1'b1;
 000752	            error = ErrBthVersion;
	          end
	
	          // The opcode table (model/formats/opcodes.cpp): which extended
	          // headers follow the BTH, their bytes, and the payload rule. UC
	          // 0x20-0x2B repeats RC 0x00-0x0B.
 032946	          known = 1'b1;
 032946	          ext_bytes = '0;
 032946	          rule = PayloadNone;
 032946	          imm_at = 5'd0;
 055078	          if (d.bth_opcode[7:5] == 3'b000 || (d.bth_opcode[7:5] == 3'b001 &&
 005407	          verilator_coverage: (next point on previous line)

 027539	                                               d.bth_opcode[4:0] <= 5'h0B)) begin
 027539	            case (d.bth_opcode[4:0])
 011870	              5'h00, 5'h01, 5'h07, 5'h0E: rule = PayloadExactlyPmtu;
 005542	              5'h02, 5'h08: rule = PayloadOneToPmtu;
 005328	              5'h03, 5'h09: begin
 002664	                d.has_imm_dt = 1'b1;
 002664	                rule = PayloadOneToPmtu;
	              end
 007312	              5'h04: rule = PayloadZeroToPmtu;
 002598	              5'h05: begin
 001299	                d.has_imm_dt = 1'b1;
 001299	                rule = PayloadZeroToPmtu;
	              end
 002810	              5'h06: begin
 001405	                d.has_reth = 1'b1;
 001405	                rule = PayloadExactlyPmtu;
	              end
 002938	              5'h0A: begin
 001469	                d.has_reth = 1'b1;
 001469	                rule = PayloadZeroToPmtu;
	              end
 002668	              5'h0B: begin
 001334	                d.has_reth = 1'b1;
 001334	                d.has_imm_dt = 1'b1;
 001334	                imm_at = 5'd16;
 001334	                rule = PayloadZeroToPmtu;
	              end
 001432	              5'h0C: d.has_reth = 1'b1;
 001256	              5'h0D: begin
 000628	                d.has_aeth = 1'b1;
 000628	                rule = PayloadExactlyPmtu;
	              end
 001292	              5'h0F: begin
 000646	                d.has_aeth = 1'b1;
 000646	                rule = PayloadOneToPmtu;
	              end
 001338	              5'h10: begin
 000669	                d.has_aeth = 1'b1;
 000669	                rule = PayloadZeroToPmtu;
	              end
 001682	              5'h11: d.has_aeth = 1'b1;
 001388	              5'h12: begin
 000694	                d.has_aeth = 1'b1;
 000694	                d.has_atomic_ack_eth = 1'b1;
	              end
 002592	              5'h13, 5'h14: d.has_atomic_eth = 1'b1;
 001290	              5'h16: begin
 000645	                d.has_ieth = 1'b1;
 000645	                rule = PayloadOneToPmtu;
	              end
 001392	              5'h17: begin
 000696	                d.has_ieth = 1'b1;
 000696	                rule = PayloadZeroToPmtu;
	              end
 000350	              default: known = 1'b0;  // 0x15 and 0x18 to 0x1F
	            endcase
 005407	          end else begin
 005407	            case (d.bth_opcode)
 001542	              8'h64: begin
 000771	                d.has_deth = 1'b1;
 000771	                rule = PayloadZeroToPmtu;
	              end
 001340	              8'h65: begin
 000670	                d.has_deth = 1'b1;
 000670	                d.has_imm_dt = 1'b1;
 000670	                imm_at = 5'd8;
 000670	                rule = PayloadZeroToPmtu;
	              end
 001508	              8'h81: ext_bytes = PosW'(16);  // CNP: 16 reserved bytes
 006424	              default: known = 1'b0;
	            endcase
	          end
 004694	          if (!failed && !known) begin
 030599	          verilator_coverage: (next point on previous line)

 002347	            failed = 1'b1;
 002347	            error = ErrUnsupportedOpcode;
	          end
 032946	          ext_bytes = ext_bytes + (d.has_reth ? PosW'(16) : '0) + (d.has_aeth ? PosW'(4) : '0) +
 032946	              (d.has_atomic_eth ? PosW'(28) : '0) + (d.has_atomic_ack_eth ? PosW'(8) : '0) +
 032946	              (d.has_imm_dt ? PosW'(4) : '0) + (d.has_ieth ? PosW'(4) : '0) +
 032946	              (d.has_deth ? PosW'(8) : '0);
	
	          // The extended headers: each starts right after the BTH, except
	          // ImmDt after a RETH or DETH and AtomicAckETH after the AETH.
 032946	          ext_window = `PACKET_PARSER_UDP(20, ExtBytes);
 009848	          if (d.has_reth) begin
 028022	          verilator_coverage: (next point on previous line)

 004924	            d.reth_virtual_address = `PACKET_PARSER_EXT(0, 8);
 004924	            d.reth_rkey = `PACKET_PARSER_EXT(8, 4);
 004924	            d.reth_dma_length = `PACKET_PARSER_EXT(12, 4);
	          end
 006956	          if (d.has_aeth) begin
 029468	          verilator_coverage: (next point on previous line)

 003478	            d.aeth_syndrome = `PACKET_PARSER_EXT(0, 1);
 003478	            d.aeth_msn = `PACKET_PARSER_EXT(1, 3);
	          end
 002592	          if (d.has_atomic_eth) begin
 031650	          verilator_coverage: (next point on previous line)

 001296	            d.atomic_virtual_address = `PACKET_PARSER_EXT(0, 8);
 001296	            d.atomic_rkey = `PACKET_PARSER_EXT(8, 4);
 001296	            d.atomic_swap_add = `PACKET_PARSER_EXT(12, 8);
 001296	            d.atomic_compare = `PACKET_PARSER_EXT(20, 8);
	          end
 001388	          if (d.has_atomic_ack_eth) d.atomic_ack_original_data = `PACKET_PARSER_EXT(4, 8);
 032252	          verilator_coverage: (next point on previous line)

 011934	          if (d.has_imm_dt) d.imm_dt = ext_window[8*ExtBytes-1-32'({imm_at, 3'd0})-:32];
 026979	          verilator_coverage: (next point on previous line)

 002682	          if (d.has_ieth) d.ieth_rkey = `PACKET_PARSER_EXT(0, 4);
 031605	          verilator_coverage: (next point on previous line)

 002882	          if (d.has_deth) begin
 031505	          verilator_coverage: (next point on previous line)

 001441	            d.deth_qkey = `PACKET_PARSER_EXT(0, 4);
 001441	            d.deth_source_qp = `PACKET_PARSER_EXT(5, 3);
	          end
	
	          // Lengths: headers, then pad and payload, between the BTH and the
	          // ICRC (UDP header 8 + BTH 12 + ICRC 4 = 24 bytes of the UDP length).
 000862	          if (!failed && udp_length - PosW'(24) < ext_bytes) begin
 032515	          verilator_coverage: (next point on previous line)

 000431	            failed = 1'b1;
 000431	            error = ErrHeaderLength;
	          end
 032946	          data_bytes = udp_length - PosW'(24) - ext_bytes;
 032946	          pad = {{(PosW - 2) {1'b0}}, d.bth_pad_count};
 006118	          if (!failed && (pad > data_bytes || (pad != 0 && rule == PayloadNone) ||
 029887	          verilator_coverage: (next point on previous line)

 003059	                          data_bytes[1:0] != 2'b00)) begin
 003059	            failed = 1'b1;
 003059	            error = ErrPad;
	          end
 032946	          d.payload_offset = 16'(ip_offset + ip_header_bytes + PosW'(20) + ext_bytes);
 032946	          d.payload_length = 16'(data_bytes - pad);
 032946	          exact_pmtu = d.payload_length == 16'd256 || d.payload_length == 16'd512 ||
 032946	              d.payload_length == 16'd1024 || d.payload_length == 16'd2048 ||
 032946	              d.payload_length == 16'd4096;
 002708	          if (!failed && !(rule == PayloadNone ? d.payload_length == 0 :
 031592	          verilator_coverage: (next point on previous line)

	                           rule == PayloadExactlyPmtu ? exact_pmtu :
	                           rule == PayloadOneToPmtu ? d.payload_length != 0 &&
	                                                      d.payload_length <= MaxPmtu :
 001354	                           d.payload_length <= MaxPmtu)) begin
 001354	            failed = 1'b1;
 001354	            error = ErrPayloadLength;
	          end
	
 032946	          d.ok = !failed;
 032946	          d.error = error;
 032946	          m_desc_valid_o <= 1'b1;
 032946	          m_desc_o <= d;
	        end
	      end
	    end
	    // After a reset and after a frame's last beat, the next frame starts
	    // from nothing.
 065952	    if (!rst_ni || (s_frame_tvalid_i && s_frame_tready_o && s_frame_tlast_i)) begin
 2801220	    verilator_coverage: (next point on previous line)

 032976	      beat_pos_q <= '0;
 032976	      frame_long_q <= 1'b0;
 032976	      window_q <= '0;
	    end
	  end
	  /* verilator lint_on BLKSEQ */
	
	endmodule
	
	`undef PACKET_PARSER_EXT
	`undef PACKET_PARSER_UDP
	`undef PACKET_PARSER_IP
	`undef PACKET_PARSER_FIELD
	`resetall
	
