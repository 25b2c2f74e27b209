`resetall
`timescale 1ns / 1ps
`default_nettype none

// PFC MAC control unit: the RTL twin of the model's PfcUnit
// (model/wire/pfc_unit.hpp), the part of a MAC that does IEEE 802.1Qbb
// priority flow control:
// - receive: sniffs the received frame stream; a MAC Control frame
//   (EtherType 0x8808) is flagged for the MAC to consume, and one of opcode
//   0x0101 loads each named lossless priority's pause timer with its quanta
//   times the quantum's length (0 resumes it at once);
// - transmit: per priority, whether the MAC may start a frame (paused_o),
//   and the time each priority has spent paused;
// - XOFF/XON: a buffer level for some priorities (the receive buffer's
//   bytes) above cfg_xoff congests the lossless ones among them, at or below
//   cfg_xon relieves them; each change sends one PFC frame naming the
//   priorities that changed (pause_quanta, or 0 to resume), and while any
//   priority is congested the pause is sent again every refresh_quanta.
//
// Time: each cycle is an instant; elapsed_ps_i is the time since the previous
// one (a fixed clock period in a MAC; a testbench or the model's bridge may
// skip idle time by giving a longer one). Timers count picoseconds down, so
// a pause that arrives at any instant ends at exactly that instant plus its
// quanta. Within a cycle: time passes first, then the received frame's pause
// and the level's change apply, then a refresh that fell due sends the pause
// again for the priorities still congested.
//
// Throughput: a received frame at one beat per cycle; a level each cycle
// while no change waits to be sent; PFC frames 60 bytes long, back to back.
module pfc_unit #(
    parameter int DATA_BYTES = 8,
    // Test only: 1 ignores a received pause of 0 quanta (the priority stays
    // paused until its timer runs out), for the scoreboard to catch.
    parameter int TEST_FAULT = 0
) (
    input wire clk_i,
    input wire rst_ni,

    // Configuration, held steady while the unit runs.
    input wire [ 7:0] cfg_lossless_i,        // bit p: priority p is lossless (0: PFC off)
    input wire [15:0] cfg_pause_quanta_i,    // what a pause asks for, 1 to 65535
    input wire [15:0] cfg_refresh_quanta_i,  // the pause is sent again after this, >= 1
    input wire [47:0] cfg_xoff_bytes_i,
    input wire [47:0] cfg_xon_bytes_i,       // at most cfg_xoff_bytes_i
    input wire [23:0] cfg_quantum_ps_i,      // 512 bit times at the port's rate (5120 at 100G)
    input wire [47:0] cfg_source_mac_i,      // the PFC frames' source, first byte in [47:40]

    input wire [47:0] elapsed_ps_i,  // time since the previous cycle

    // The received frames, as the MAC delivers them (no FCS).
    input wire                    s_rx_valid_i,
    input wire [8*DATA_BYTES-1:0] s_rx_data_i,
    input wire [  DATA_BYTES-1:0] s_rx_keep_i,   // all ones but on the last beat, from lane 0
    input wire                    s_rx_last_i,
    // With a frame's last beat: what it was.
    output logic       rx_control_o,  // a MAC Control frame: the MAC consumes it
    output logic [7:0] rx_pauses_o,   // lossless priorities it paused
    output logic [7:0] rx_resumes_o,  // lossless priorities it resumed (0 quanta)

    // The receive buffer holds s_level_bytes_i for s_level_priorities_i.
    input  wire        s_level_valid_i,
    output logic       s_level_ready_o,
    input  wire [ 7:0] s_level_priorities_i,
    input  wire [47:0] s_level_bytes_i,

    // PFC frames to send, ahead of data.
    output logic                    m_tx_valid_o,
    input  wire                     m_tx_ready_i,
    output logic [8*DATA_BYTES-1:0] m_tx_data_o,
    output logic [  DATA_BYTES-1:0] m_tx_keep_o,
    output logic                    m_tx_last_o,
    output logic                    tx_pending_o,  // a PFC frame is being sent or waits to be

    output logic [ 7:0] paused_o,        // bit p: priority p may not start a frame
    output logic [39:0] resume_in_ps_o,  // until the first paused priority resumes; 0: none paused
    output logic [39:0] refresh_in_ps_o, // until the refresh falls due; 0: none armed
    output logic [ 7:0] congested_o,     // priorities the peer has been asked to pause
    input  wire  [ 2:0] stat_priority_i,
    // Time stat_priority_i has spent paused, up to the end of this cycle.
    output logic [63:0] stat_paused_ps_o
);

  if (DATA_BYTES < 2 || DATA_BYTES > 64) begin : g_bad_data_bytes
    $error("pfc_unit: DATA_BYTES must be 2 to 64");
  end
  if (TEST_FAULT != 0 && TEST_FAULT != 1) begin : g_bad_test_fault
    $error("pfc_unit: TEST_FAULT must be 0 or 1");
  end

  localparam int Priorities = 8;
  localparam int TimerW = 40;  // 65535 quanta of up to 2^24 ps
  localparam int HeaderBytes = 34;  // through the last priority's quanta
  localparam int FrameBytes = 60;  // the minimum frame without its FCS
  localparam int FrameBeats = (FrameBytes + DATA_BYTES - 1) / DATA_BYTES;
  localparam int HeaderBeats = (HeaderBytes + DATA_BYTES - 1) / DATA_BYTES;
  localparam int BeatW = $clog2(FrameBeats + 1);
  localparam int CountW = $clog2(DATA_BYTES + 1);
  localparam logic [15:0] EtherTypeMacControl = 16'h8808;
  localparam logic [15:0] OpcodePfc = 16'h0101;
  localparam logic [47:0] PfcDestination = 48'h0180_C200_0001;

  // ---------------------------------------------------------------- receive
  // The first HeaderBytes bytes of the frame on the stream, as they pass.
  logic [7:0] header_q[HeaderBytes];
  logic [7:0] header_now[HeaderBytes];  // with this beat's bytes
  logic [BeatW-1:0] rx_beat_q;  // beats of this frame already taken, saturating
  logic [6:0] rx_bytes_q;  // its bytes already taken, saturating at 64
  logic [6:0] rx_bytes_now;
  logic [CountW-1:0] keep_count;

  always_comb begin
    keep_count = '0;
    for (int lane = 0; lane < DATA_BYTES; lane++) keep_count += CountW'(s_rx_keep_i[lane]);
    rx_bytes_now = rx_bytes_q + 7'(keep_count);
    for (int j = 0; j < HeaderBytes; j++) begin
      header_now[j] = header_q[j];
      if (32'(rx_beat_q) == j / DATA_BYTES && s_rx_keep_i[j%DATA_BYTES]) begin
        header_now[j] = s_rx_data_i[8*(j%DATA_BYTES)+:8];
      end
    end
  end

  logic frame_end, is_control, is_pfc;
  logic [7:0] named;  // class-enable vector: priorities 0-7 (its upper byte is reserved)
  logic [15:0] rx_quanta[Priorities];
  logic [7:0] rx_resume_bits;

  always_comb begin
    frame_end = s_rx_valid_i && s_rx_last_i;
    is_control = rx_bytes_now >= 7'd14 && {header_now[12], header_now[13]} == EtherTypeMacControl;
    is_pfc = is_control && rx_bytes_now >= 7'(HeaderBytes) &&
        {header_now[14], header_now[15]} == OpcodePfc;
    named = header_now[17];
    for (int p = 0; p < Priorities; p++) begin
      rx_quanta[p] = {header_now[18+2*p], header_now[19+2*p]};
      rx_resume_bits[p] = rx_quanta[p] == 16'd0;
    end
    rx_control_o = frame_end && is_control;
    rx_pauses_o = frame_end && is_pfc ? named & cfg_lossless_i & ~rx_resume_bits : 8'd0;
    rx_resumes_o = frame_end && is_pfc ? named & cfg_lossless_i & rx_resume_bits : 8'd0;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rx_beat_q <= '0;
      rx_bytes_q <= '0;
      for (int j = 0; j < HeaderBytes; j++) header_q[j] <= 8'd0;
    end else if (s_rx_valid_i) begin
      if (s_rx_last_i) begin
        rx_beat_q <= '0;
        rx_bytes_q <= '0;
      end else begin
        if (32'(rx_beat_q) < HeaderBeats) rx_beat_q <= rx_beat_q + 1'b1;
        rx_bytes_q <= rx_bytes_now > 7'd64 ? 7'd64 : rx_bytes_now;
        for (int j = 0; j < HeaderBytes; j++) header_q[j] <= header_now[j];
      end
    end
  end

  // ------------------------------------------------------------ pause timers
  logic [TimerW-1:0] pause_left_q[Priorities];  // 0: may send
  // A statistic: never wraps in practice. Public for the tests' backdoor
  // (RtlPfcUnit::load_paused_ps), which sets it as a verification
  // environment may, to reach its high bits.
  logic [63:0] paused_ps_q[Priorities]  /* verilator public_flat_rw */;
  logic [TimerW-1:0] pause_left_after[Priorities];  // once this cycle's time has passed
  logic [TimerW-1:0] paused_for[Priorities];  // of this cycle's time

  always_comb begin
    resume_in_ps_o = '0;
    for (int p = 0; p < Priorities; p++) begin
      paused_o[p] = pause_left_q[p] != '0;
      if (paused_o[p] && (resume_in_ps_o == '0 || pause_left_q[p] < resume_in_ps_o)) begin
        resume_in_ps_o = pause_left_q[p];
      end
      if (elapsed_ps_i >= 48'(pause_left_q[p])) begin
        pause_left_after[p] = '0;
        paused_for[p] = pause_left_q[p];
      end else begin
        pause_left_after[p] = pause_left_q[p] - elapsed_ps_i[TimerW-1:0];
        paused_for[p] = elapsed_ps_i[TimerW-1:0];
      end
    end
    stat_paused_ps_o = paused_ps_q[stat_priority_i] + 64'(paused_for[stat_priority_i]);
  end

  always_ff @(posedge clk_i) begin
    for (int p = 0; p < Priorities; p++) begin
      if (!rst_ni) begin
        pause_left_q[p] <= '0;
        paused_ps_q[p] <= '0;
      end else begin
        paused_ps_q[p] <= paused_ps_q[p] + 64'(paused_for[p]);
        if (rx_pauses_o[p]) begin
          pause_left_q[p] <= TimerW'(rx_quanta[p]) * TimerW'(cfg_quantum_ps_i);
        end else if (rx_resumes_o[p] && TEST_FAULT == 0) begin
          pause_left_q[p] <= '0;
        end else begin
          pause_left_q[p] <= pause_left_after[p];
        end
      end
    end
  end

  // ---------------------------------------------------------------- XOFF/XON
  logic [7:0] congested_q;
  logic [7:0] level_lossless, changing, congested_next;
  logic level_taken, level_pauses;
  // A change waiting to be sent: the priorities it names, pause or resume.
  logic change_waiting_q, change_pause_q;
  logic [7:0] change_named_q;

  always_comb begin
    s_level_ready_o = !change_waiting_q;
    level_taken = s_level_valid_i && s_level_ready_o;
    level_lossless = s_level_priorities_i & cfg_lossless_i;
    level_pauses = s_level_bytes_i > cfg_xoff_bytes_i;
    if (!level_taken) begin
      changing = 8'd0;
    end else if (level_pauses) begin
      changing = level_lossless & ~congested_q;
    end else if (s_level_bytes_i <= cfg_xon_bytes_i) begin
      changing = level_lossless & congested_q;
    end else begin
      changing = 8'd0;
    end
    congested_next = level_pauses ? congested_q | changing : congested_q & ~changing;
    congested_o = congested_q;
  end

  // ----------------------------------------------------------------- refresh
  logic refresh_armed_q;
  logic [TimerW-1:0] refresh_left_q;
  logic refresh_due, refresh_owed_q;
  logic [TimerW-1:0] refresh_period;

  always_comb begin
    refresh_period = TimerW'(cfg_refresh_quanta_i) * TimerW'(cfg_quantum_ps_i);
    refresh_due = refresh_armed_q && elapsed_ps_i >= 48'(refresh_left_q);
    refresh_in_ps_o = refresh_armed_q ? refresh_left_q : '0;
  end

  // ---------------------------------------------------------- frame sender
  logic sending_q, send_pause_q;
  logic [7:0] send_named_q;
  logic [BeatW-1:0] send_beat_q;
  logic [7:0] frame[FrameBytes];
  logic send_start;

  always_comb begin
    for (int j = 0; j < FrameBytes; j++) frame[j] = 8'd0;
    for (int j = 0; j < 6; j++) begin
      frame[j] = PfcDestination[8*(5-j)+:8];
      frame[6+j] = cfg_source_mac_i[8*(5-j)+:8];
    end
    {frame[12], frame[13]} = EtherTypeMacControl;
    {frame[14], frame[15]} = OpcodePfc;
    frame[17] = send_named_q;
    for (int p = 0; p < Priorities; p++) begin
      {frame[18+2*p], frame[19+2*p]} = send_named_q[p] && send_pause_q ? cfg_pause_quanta_i : 16'd0;
    end
    m_tx_valid_o = sending_q;
    m_tx_last_o = 32'(send_beat_q) == FrameBeats - 1;
    for (int lane = 0; lane < DATA_BYTES; lane++) begin
      if (32'(send_beat_q) * DATA_BYTES + lane < FrameBytes) begin
        m_tx_data_o[8*lane+:8] = frame[32'(send_beat_q)*DATA_BYTES+lane];
        m_tx_keep_o[lane] = 1'b1;
      end else begin
        m_tx_data_o[8*lane+:8] = 8'd0;
        m_tx_keep_o[lane] = 1'b0;
      end
    end
    tx_pending_o = sending_q || change_waiting_q || refresh_owed_q;
    // The next frame starts once the sender is free: a level's change first,
    // then a refresh owed.
    send_start = !sending_q || (m_tx_ready_i && m_tx_last_o);
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      congested_q <= '0;
      change_waiting_q <= 1'b0;
      change_pause_q <= 1'b0;
      change_named_q <= '0;
      refresh_armed_q <= 1'b0;
      refresh_left_q <= '0;
      refresh_owed_q <= 1'b0;
      sending_q <= 1'b0;
      send_pause_q <= 1'b0;
      send_named_q <= '0;
      send_beat_q <= '0;
    end else begin
      congested_q <= congested_next;

      // The refresh timer: armed when the first priority congests, sent
      // again while any stays congested, disarmed when none does.
      if (refresh_due) begin
        refresh_owed_q <= refresh_owed_q || congested_next != 8'd0;
        refresh_armed_q <= congested_next != 8'd0;
        refresh_left_q <= congested_next != 8'd0 ? refresh_period : '0;
      end else if (refresh_armed_q) begin
        refresh_left_q <= refresh_left_q - elapsed_ps_i[TimerW-1:0];
      end else if (congested_q == 8'd0 && congested_next != 8'd0) begin
        refresh_armed_q <= 1'b1;
        refresh_left_q <= refresh_period;
      end

      if (changing != 8'd0) begin
        change_waiting_q <= 1'b1;
        change_pause_q <= level_pauses;
        change_named_q <= changing;
      end

      if (sending_q && m_tx_ready_i) send_beat_q <= send_beat_q + 1'b1;
      if (send_start) begin
        if (change_waiting_q) begin
          sending_q <= 1'b1;
          send_pause_q <= change_pause_q;
          send_named_q <= change_named_q;
          send_beat_q <= '0;
          change_waiting_q <= 1'b0;  // no level is taken while one waits
        end else if (refresh_owed_q && congested_q != 8'd0) begin
          sending_q <= 1'b1;
          send_pause_q <= 1'b1;
          send_named_q <= congested_q;
          send_beat_q <= '0;
          refresh_owed_q <= refresh_due && congested_next != 8'd0;
        end else begin
          sending_q <= 1'b0;
          // A refresh owed with nothing congested any more is dropped.
          if (!refresh_due) refresh_owed_q <= 1'b0;
        end
      end
    end
  end

  // Unused: the reserved upper byte of a received class-enable vector.
  logic unused;
  assign unused = ^header_now[16];

endmodule

`resetall
