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
    input wire clk_i,
    input wire rst_ni,

    input  wire [8*DATA_BYTES-1:0] s_frame_tdata_i,
    input  wire [  DATA_BYTES-1:0] s_frame_tkeep_i,
    input  wire                    s_frame_tlast_i,
    input  wire                    s_frame_tvalid_i,
    output logic                   s_frame_tready_o,

    output logic        m_result_valid_o,
    input  wire         m_result_ready_i,
    output logic        m_result_roce_o,
    output logic [31:0] m_result_icrc_o,
    output logic        m_result_match_o
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
  function automatic logic [8*32-1:0] crc32_columns();
    logic [31:0] c;
    for (int j = 0; j < 8; j++) begin
      c = 32'd1 << j;
      for (int b = 0; b < 8; b++) c = c[0] ? ((c >> 1) ^ 32'hEDB88320) : (c >> 1);
      crc32_columns[32*j+:32] = c;
    end
  endfunction
  localparam logic [8*32-1:0] Crc32Columns = crc32_columns();

  function automatic logic [31:0] crc32_byte(input logic [31:0] state, input logic [7:0] data);
    logic [7:0] left;
    left = state[7:0] ^ data;
    crc32_byte = state >> 8;
    for (int j = 0; j < 8; j++) crc32_byte = crc32_byte ^ ({32{left[j]}} & Crc32Columns[32*j+:32]);
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
  function automatic logic [512*BeatNibbles-1:0] crc32_beat_tables();
    logic [32*BeatInputs-1:0] columns;  // input bit i's at [32*i +: 32]
    logic [8*32-1:0] byte_columns;  // one per bit of a byte, as Crc32Columns
    logic [31:0] entry;
    byte_columns = Crc32Columns;
    for (int p = DATA_BYTES - 1; p >= 0; p--) begin
      for (int b = 0; b < 8; b++) begin
        columns[32*(8*p+b)+:32] = byte_columns[32*b+:32];
        byte_columns[32*b+:32] = crc32_byte(byte_columns[32*b+:32], 8'h00);
      end
    end
    for (int k = 0; k < 32; k++) begin
      entry = 32'd1 << k;
      for (int p = 0; p < DATA_BYTES; p++) entry = crc32_byte(entry, 8'h00);
      columns[32*(8*DATA_BYTES+k)+:32] = entry;
    end
    for (int n = 0; n < BeatNibbles; n++) begin
      for (int v = 0; v < 16; v++) begin
        entry = '0;
        for (int b = 0; b < 4; b++) if (v[b]) entry = entry ^ columns[32*(4*n+b)+:32];
        crc32_beat_tables[512*n+32*v+:32] = entry;
      end
    end
  endfunction
  localparam logic [512*BeatNibbles-1:0] Crc32BeatTables = crc32_beat_tables();

  // Entry v of one nibble's table. Given a constant slice of
  // Crc32BeatTables, Verilator makes it one load from a constant array.
  function automatic logic [31:0] table_entry(input logic [511:0] nibble_table,
                                              input logic [3:0] v);
    table_entry = nibble_table[{v, 5'd0}+:32];
  endfunction

  // The state after zlib's initial ones and the 8 x 0xFF of the masked LRH.
  localparam logic [31:0] LrhState = 32'hDEBB20E3;

  logic [PosW-1:0] beat_pos_q;  // position of lane 0
  logic frame_long_q;  // the frame has passed PosMax - 2 x DATA_BYTES bytes
  logic [31:0] crc_q;
  // Header bytes picked so far (zero until they pass).
  logic [15:0] outer_type_q, inner_type_q, ip_length_q, udp_port_q, udp_length_q;
  logic [7:0] ip_first_q, ip_protocol_q;
  logic [31:0] icrc_field_q;

  // The byte at frame position `at`: from this beat if it is here, else
  // `held`. It reads the beat from the ports rather than taking it as an
  // argument, which a simulator would copy whole into every call.
  function automatic logic [7:0] pick(input logic [PosW-1:0] at, input logic [7:0] held);
    logic [PosW-1:0] lane;
    lane = at - beat_pos_q;
    pick = held;
    if (at >= beat_pos_q && lane < Beat && s_frame_tkeep_i[lane[LaneW-1:0]])
      pick = s_frame_tdata_i[{lane[LaneW-1:0], 3'd0}+:8];
  endfunction

  // The same for a byte of the headers, all before HeaderBytes: a beat past
  // them need not look.
  function automatic logic [7:0] pick_header(input logic [PosW-1:0] at, input logic [7:0] held);
    pick_header = held;
    if (beat_pos_q < HeaderBytes) pick_header = pick(at, held);
  endfunction

  // The state after a beat of payload. A function, so that a simulator keeps
  // the sum in a register rather than in the module; it takes the state as
  // an argument because yosys 0.23 evaluates a call without one as a
  // constant.
  function automatic logic [31:0] crc32_beat(input logic [31:0] state);
    crc32_beat = '0;
    for (int p = 0; p < DATA_BYTES; p++) begin
      for (int h = 0; h < 2; h++) begin
        crc32_beat = crc32_beat ^ table_entry(Crc32BeatTables[512*(2*p+h)+:512],
                                              s_frame_tdata_i[8*p+4*h+:4]);
      end
    end
    for (int q = 0; q < 8; q++) begin
      crc32_beat = crc32_beat ^ table_entry(Crc32BeatTables[512*(2*DATA_BYTES+q)+:512],
                                            state[4*q+:4]);
    end
  endfunction

  // The state after any other beat, lane by lane: each byte the ICRC covers,
  // with its mask. A function, for the same reason as crc32_beat.
  function automatic logic [31:0] crc32_lanes(input logic ipv6, input logic [PosW-1:0] ip_offset,
                                              input logic [PosW-1:0] ip_header_bytes,
                                              input logic [PosW-1:0] udp_offset,
                                              input logic [PosW-1:0] icrc_offset);
    logic [PosW-1:0] at, from_ip;
    logic [7:0] mask;
    crc32_lanes = crc_q;
    for (int i = 0; i < DATA_BYTES; i++) begin
      at = beat_pos_q + PosW'(i);
      // Covered: from the IP header to the ICRC field. Up to the UDP length
      // every IP byte is (a RoCEv2 UDP length is at least 24).
      if (s_frame_tkeep_i[i] && at >= ip_offset && (at < udp_offset + 6 || at < icrc_offset)) begin
        from_ip = at - ip_offset;
        mask = 8'h00;
        if (ipv6) begin
          if (from_ip == 0) mask = 8'h0F;  // traffic class, high nibble
          if (from_ip >= 1 && from_ip <= 3) mask = 8'hFF;  // traffic class, flow label
          if (from_ip == 7) mask = 8'hFF;  // hop limit
        end else begin
          if (from_ip == 1 || from_ip == 8) mask = 8'hFF;  // TOS, TTL
          if (from_ip == 10 || from_ip == 11) mask = 8'hFF;  // header checksum
        end
        if (from_ip == ip_header_bytes + 6 || from_ip == ip_header_bytes + 7)
          mask = 8'hFF;  // UDP checksum
        if (TEST_FAULT != 1 && from_ip == ip_header_bytes + 12) mask = 8'hFF;  // BTH byte 4
        crc32_lanes = crc32_byte(crc32_lanes, s_frame_tdata_i[8*i+:8] | mask);
      end
    end
  endfunction

  assign s_frame_tready_o = !m_result_valid_o || m_result_ready_i;

  // Everything happens at the clock edge that takes a beat: the header
  // fields as of this beat, the CRC over it, and on a last beat the result.
  // (Computed here rather than in an always_comb so that a simulator works
  // it out once per beat, not again whenever an input changes.)
  always_ff @(posedge clk_i) begin : take_beat
    logic [15:0] outer_type, inner_type, ether_type, ip_length, udp_port, udp_length;
    logic [7:0] ip_first, ip_protocol;
    logic [31:0] icrc_field, crc;
    logic vlan, ipv6, roce;
    logic [PosW-1:0] ip_offset, ip_header_bytes, udp_offset, icrc_offset, frame_bytes;
    logic [PosW-1:0] ip_payload_bytes;
    logic [CountW-1:0] beat_bytes;

    if (!rst_ni) begin
      m_result_valid_o <= 1'b0;
      m_result_roce_o <= 1'b0;
      m_result_icrc_o <= '0;
      m_result_match_o <= 1'b0;
    end else begin
      if (m_result_ready_i) m_result_valid_o <= 1'b0;
      if (s_frame_tvalid_i && s_frame_tready_o) begin
        outer_type = {
          pick_header(PosW'(12), outer_type_q[15:8]),
          pick_header(PosW'(13), outer_type_q[7:0])
        };
        vlan = outer_type == EtherTypeVlan;
        inner_type = {
          pick_header(PosW'(16), inner_type_q[15:8]),
          pick_header(PosW'(17), inner_type_q[7:0])
        };
        ether_type = vlan ? inner_type : outer_type;
        ipv6 = ether_type == EtherTypeIpv6;
        ip_offset = vlan ? PosW'(18) : PosW'(14);

        ip_first = pick_header(ip_offset, ip_first_q);
        ip_header_bytes = ipv6 ? PosW'(40) : {{(PosW - 6) {1'b0}}, ip_first[3:0], 2'b00};
        // IPv4 total length (bytes 2-3) or IPv6 payload length (bytes 4-5).
        ip_length = {
          pick_header(ip_offset + (ipv6 ? PosW'(4) : PosW'(2)), ip_length_q[15:8]),
          pick_header(ip_offset + (ipv6 ? PosW'(5) : PosW'(3)), ip_length_q[7:0])
        };
        ip_protocol = pick_header(ip_offset + (ipv6 ? PosW'(6) : PosW'(9)), ip_protocol_q);

        udp_offset = ip_offset + ip_header_bytes;
        udp_port = {
          pick_header(udp_offset + PosW'(2), udp_port_q[15:8]),
          pick_header(udp_offset + PosW'(3), udp_port_q[7:0])
        };
        udp_length = {
          pick_header(udp_offset + PosW'(4), udp_length_q[15:8]),
          pick_header(udp_offset + PosW'(5), udp_length_q[7:0])
        };
        // Before the UDP length has passed this points too early; the bytes
        // it picks then are picked again when the real field passes.
        icrc_offset = udp_offset + {{(PosW - 16) {1'b0}}, udp_length} - PosW'(4);

        // A whole beat of payload: past the last masked byte (BTH byte 4),
        // so every field that places the ICRC field has passed, and before
        // that field, so every byte is covered and none masked.
        if (beat_pos_q > udp_offset + PosW'(12) && beat_pos_q + Beat <= icrc_offset &&
            !s_frame_tlast_i) begin
          crc = crc32_beat(crc_q);
          icrc_field = icrc_field_q;
        end else begin
          for (int k = 0; k < 4; k++) begin
            icrc_field[8*k+:8] = pick(icrc_offset + PosW'(k), icrc_field_q[8*k+:8]);
          end
          crc = crc32_lanes(ipv6, ip_offset, ip_header_bytes, udp_offset, icrc_offset);
        end

        if (s_frame_tlast_i) begin
          beat_bytes = '0;
          for (int i = 0; i < DATA_BYTES; i++)
            beat_bytes = beat_bytes + CountW'(s_frame_tkeep_i[i]);
          frame_bytes = beat_pos_q + {{(PosW - CountW) {1'b0}}, beat_bytes};
          ip_payload_bytes = ipv6 ? {{(PosW - 16) {1'b0}}, ip_length}
                                  : {{(PosW - 16) {1'b0}}, ip_length} - ip_header_bytes;
          // locate_icrc's checks.
          roce = (ipv6 && ip_first[7:4] == 4'd6) ||
              (ether_type == EtherTypeIpv4 && ip_first[7:4] == 4'd4 && ip_first[3:0] >= 4'd5 &&
               {{(PosW - 16) {1'b0}}, ip_length} >= ip_header_bytes);
          roce = roce && ip_protocol == IpProtocolUdp && udp_port == RoceV2UdpPort &&
              udp_length >= MinRoceUdpLength &&
              {{(PosW - 16) {1'b0}}, udp_length} == ip_payload_bytes &&
              (frame_long_q || udp_offset + ip_payload_bytes <= frame_bytes);
          m_result_valid_o <= 1'b1;
          m_result_roce_o <= roce;
          m_result_icrc_o <= ~crc;
          m_result_match_o <= ~crc == icrc_field;
        end else begin
          // Stop short enough that no lane's position wraps.
          if (beat_pos_q > PosMax - 2 * Beat) frame_long_q <= 1'b1;
          else beat_pos_q <= beat_pos_q + Beat;
          crc_q <= crc;
          outer_type_q <= outer_type;
          inner_type_q <= inner_type;
          ip_first_q <= ip_first;
          ip_length_q <= ip_length;
          ip_protocol_q <= ip_protocol;
          udp_port_q <= udp_port;
          udp_length_q <= udp_length;
          icrc_field_q <= icrc_field;
        end
      end
    end
    // After a reset and after a frame's last beat, the next frame starts
    // from nothing.
    if (!rst_ni || (s_frame_tvalid_i && s_frame_tready_o && s_frame_tlast_i)) begin
      beat_pos_q <= '0;
      frame_long_q <= 1'b0;
      crc_q <= LrhState;
      outer_type_q <= '0;
      inner_type_q <= '0;
      ip_first_q <= '0;
      ip_length_q <= '0;
      ip_protocol_q <= '0;
      udp_port_q <= '0;
      udp_length_q <= '0;
      icrc_field_q <= '0;
    end
  end

endmodule

`resetall
