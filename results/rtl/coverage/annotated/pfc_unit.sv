	// verilator_coverage annotation
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
 572536	    input wire clk_i,
 000018	    input wire rst_ni,
	
	    // Configuration, held steady while the unit runs.
 000138	    input wire [ 7:0] cfg_lossless_i,        // bit p: priority p is lossless (0: PFC off)
 000228	    input wire [15:0] cfg_pause_quanta_i,    // what a pause asks for, 1 to 65535
 000202	    input wire [15:0] cfg_refresh_quanta_i,  // the pause is sent again after this, >= 1
 000512	    input wire [47:0] cfg_xoff_bytes_i,
 000144	    input wire [47:0] cfg_xon_bytes_i,       // at most cfg_xoff_bytes_i
 000084	    input wire [23:0] cfg_quantum_ps_i,      // 512 bit times at the port's rate (5120 at 100G)
 000666	    input wire [47:0] cfg_source_mac_i,      // the PFC frames' source, first byte in [47:40]
	
 848208	    input wire [47:0] elapsed_ps_i,  // time since the previous cycle
	
	    // The received frames, as the MAC delivers them (no FCS).
 035480	    input wire                    s_rx_valid_i,
 4977898	    input wire [8*DATA_BYTES-1:0] s_rx_data_i,
 125126	    input wire [  DATA_BYTES-1:0] s_rx_keep_i,   // all ones but on the last beat, from lane 0
 022352	    input wire                    s_rx_last_i,
	    // With a frame's last beat: what it was.
 033316	    output logic       rx_control_o,  // a MAC Control frame: the MAC consumes it
 151694	    output logic [7:0] rx_pauses_o,   // lossless priorities it paused
 008922	    output logic [7:0] rx_resumes_o,  // lossless priorities it resumed (0 quanta)
	
	    // The receive buffer holds s_level_bytes_i for s_level_priorities_i.
 035920	    input  wire        s_level_valid_i,
 007054	    output logic       s_level_ready_o,
 067669	    input  wire [ 7:0] s_level_priorities_i,
 231877	    input  wire [47:0] s_level_bytes_i,
	
	    // PFC frames to send, ahead of data.
 027776	    output logic                    m_tx_valid_o,
 000018	    input  wire                     m_tx_ready_i,
 1362400	    output logic [8*DATA_BYTES-1:0] m_tx_data_o,
 525928	    output logic [  DATA_BYTES-1:0] m_tx_keep_o,
 030056	    output logic                    m_tx_last_o,
 027776	    output logic                    tx_pending_o,  // a PFC frame is being sent or waits to be
	
 066675	    output logic [ 7:0] paused_o,        // bit p: priority p may not start a frame
 498481	    output logic [39:0] resume_in_ps_o,  // until the first paused priority resumes; 0: none paused
 112036	    output logic [39:0] refresh_in_ps_o, // until the refresh falls due; 0: none armed
 008183	    output logic [ 7:0] congested_o,     // priorities the peer has been asked to pause
 683874	    input  wire  [ 2:0] stat_priority_i,
	    // Time stat_priority_i has spent paused, up to the end of this cycle.
 4140566	    output logic [63:0] stat_paused_ps_o
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
 634518	  logic [7:0] header_q[HeaderBytes];
 2464989	  logic [7:0] header_now[HeaderBytes];  // with this beat's bytes
 105122	  logic [BeatW-1:0] rx_beat_q;  // beats of this frame already taken, saturating
 150160	  logic [6:0] rx_bytes_q;  // its bytes already taken, saturating at 64
 257756	  logic [6:0] rx_bytes_now;
 049940	  logic [CountW-1:0] keep_count;
	
 3337826	  always_comb begin
 1668913	    keep_count = '0;
 1668913	    for (int lane = 0; lane < DATA_BYTES; lane++) keep_count += CountW'(s_rx_keep_i[lane]);
 69167296	    verilator_coverage: (next point on previous line)

 1668913	    rx_bytes_now = rx_bytes_q + 7'(keep_count);
 1668913	    for (int j = 0; j < HeaderBytes; j++) begin
 113486084	    verilator_coverage: (next point on previous line)

 56743042	      header_now[j] = header_q[j];
 33184270	      if (32'(rx_beat_q) == j / DATA_BYTES && s_rx_keep_i[j%DATA_BYTES]) begin
 40150907	      verilator_coverage: (next point on previous line)

 16592135	        header_now[j] = s_rx_data_i[8*(j%DATA_BYTES)+:8];
	      end
	    end
	  end
	
 035480	  logic frame_end, is_control, is_pfc;
 020840	  verilator_coverage: (next point on previous line)

 018788	  verilator_coverage: (next point on previous line)

 114981	  logic [7:0] named;  // class-enable vector: priorities 0-7 (its upper byte is reserved)
 1301966	  logic [15:0] rx_quanta[Priorities];
 033347	  logic [7:0] rx_resume_bits;
	
 3337826	  always_comb begin
 1668913	    frame_end = s_rx_valid_i && s_rx_last_i;
 1668913	    is_control = rx_bytes_now >= 7'd14 && {header_now[12], header_now[13]} == EtherTypeMacControl;
 1668913	    is_pfc = is_control && rx_bytes_now >= 7'(HeaderBytes) &&
 1668913	        {header_now[14], header_now[15]} == OpcodePfc;
 1668913	    named = header_now[17];
 1668913	    for (int p = 0; p < Priorities; p++) begin
 26702608	    verilator_coverage: (next point on previous line)

 13351304	      rx_quanta[p] = {header_now[18+2*p], header_now[19+2*p]};
 13351304	      rx_resume_bits[p] = rx_quanta[p] == 16'd0;
	    end
 1668913	    rx_control_o = frame_end && is_control;
 1668913	    rx_pauses_o = frame_end && is_pfc ? named & cfg_lossless_i & ~rx_resume_bits : 8'd0;
 1668913	    rx_resumes_o = frame_end && is_pfc ? named & cfg_lossless_i & rx_resume_bits : 8'd0;
	  end
	
 572554	  always_ff @(posedge clk_i) begin
 000036	    if (!rst_ni) begin
 000018	      rx_beat_q <= '0;
 000018	      rx_bytes_q <= '0;
 000018	      for (int j = 0; j < HeaderBytes; j++) header_q[j] <= 8'd0;
 001224	      verilator_coverage: (next point on previous line)

 320764	    end else if (s_rx_valid_i) begin
 125877	    verilator_coverage: (next point on previous line)

 035480	      if (s_rx_last_i) begin
 142642	      verilator_coverage: (next point on previous line)

 017740	        rx_beat_q <= '0;
 017740	        rx_bytes_q <= '0;
 142642	      end else begin
 105122	        if (32'(rx_beat_q) < HeaderBeats) rx_beat_q <= rx_beat_q + 1'b1;
 090081	        verilator_coverage: (next point on previous line)

 142642	        rx_bytes_q <= rx_bytes_now > 7'd64 ? 7'd64 : rx_bytes_now;
 142642	        for (int j = 0; j < HeaderBytes; j++) header_q[j] <= header_now[j];
 9699656	        verilator_coverage: (next point on previous line)

	      end
	    end
	  end
	
	  // ------------------------------------------------------------ pause timers
 2828043	  logic [TimerW-1:0] pause_left_q[Priorities];  // 0: may send
	  // A statistic: never wraps in practice. Public for the tests' backdoor
	  // (RtlPfcUnit::load_paused_ps), which sets it as a verification
	  // environment may, to reach its high bits.
 1506084	  logic [63:0] paused_ps_q[Priorities]  /* verilator public_flat_rw */;
 4522035	  logic [TimerW-1:0] pause_left_after[Priorities];  // once this cycle's time has passed
 4184534	  logic [TimerW-1:0] paused_for[Priorities];  // of this cycle's time
	
 3337826	  always_comb begin
 1668913	    resume_in_ps_o = '0;
 1668913	    for (int p = 0; p < Priorities; p++) begin
 26702608	    verilator_coverage: (next point on previous line)

 13351304	      paused_o[p] = pause_left_q[p] != '0;
 3180726	      if (paused_o[p] && (resume_in_ps_o == '0 || pause_left_q[p] < resume_in_ps_o)) begin
 11760941	      verilator_coverage: (next point on previous line)

 1590363	        resume_in_ps_o = pause_left_q[p];
	      end
 17060050	      if (elapsed_ps_i >= 48'(pause_left_q[p])) begin
 4821279	      verilator_coverage: (next point on previous line)

 8530025	        pause_left_after[p] = '0;
 8530025	        paused_for[p] = pause_left_q[p];
 4821279	      end else begin
 4821279	        pause_left_after[p] = pause_left_q[p] - elapsed_ps_i[TimerW-1:0];
 4821279	        paused_for[p] = elapsed_ps_i[TimerW-1:0];
	      end
	    end
 1668913	    stat_paused_ps_o = paused_ps_q[stat_priority_i] + 64'(paused_for[stat_priority_i]);
	  end
	
 572554	  always_ff @(posedge clk_i) begin
 286277	    for (int p = 0; p < Priorities; p++) begin
 4580432	    verilator_coverage: (next point on previous line)

 000288	      if (!rst_ni) begin
 2290072	      verilator_coverage: (next point on previous line)

 000144	        pause_left_q[p] <= '0;
 000144	        paused_ps_q[p] <= '0;
 2290072	      end else begin
 2290072	        paused_ps_q[p] <= paused_ps_q[p] + 64'(paused_for[p]);
 151694	        if (rx_pauses_o[p]) begin
 075847	          pause_left_q[p] <= TimerW'(rx_quanta[p]) * TimerW'(cfg_quantum_ps_i);
 008276	        end else if (rx_resumes_o[p] && TEST_FAULT == 0) begin
 2210087	        verilator_coverage: (next point on previous line)

 004138	          pause_left_q[p] <= '0;
 2210087	        end else begin
 2210087	          pause_left_q[p] <= pause_left_after[p];
	        end
	      end
	    end
	  end
	
	  // ---------------------------------------------------------------- XOFF/XON
 008183	  logic [7:0] congested_q;
 058587	  logic [7:0] level_lossless, changing, congested_next;
 016366	  verilator_coverage: (next point on previous line)

 008183	  verilator_coverage: (next point on previous line)

 035920	  logic level_taken, level_pauses;
 004271	  verilator_coverage: (next point on previous line)

	  // A change waiting to be sent: the priorities it names, pause or resume.
 007036	  logic change_waiting_q, change_pause_q;
 002251	  verilator_coverage: (next point on previous line)

 010609	  logic [7:0] change_named_q;
	
 3337826	  always_comb begin
 1668913	    s_level_ready_o = !change_waiting_q;
 1668913	    level_taken = s_level_valid_i && s_level_ready_o;
 1668913	    level_lossless = s_level_priorities_i & cfg_lossless_i;
 1668913	    level_pauses = s_level_bytes_i > cfg_xoff_bytes_i;
 3237102	    if (!level_taken) begin
 1618551	      changing = 8'd0;
 014366	    end else if (level_pauses) begin
 007183	      changing = level_lossless & ~congested_q;
 038466	    end else if (s_level_bytes_i <= cfg_xon_bytes_i) begin
 023946	    verilator_coverage: (next point on previous line)

 019233	      changing = level_lossless & congested_q;
 023946	    end else begin
 023946	      changing = 8'd0;
	    end
 1668913	    congested_next = level_pauses ? congested_q | changing : congested_q & ~changing;
 1668913	    congested_o = congested_q;
	  end
	
	  // ----------------------------------------------------------------- refresh
 001300	  logic refresh_armed_q;
 112036	  logic [TimerW-1:0] refresh_left_q;
 029466	  logic refresh_due, refresh_owed_q;
 023878	  verilator_coverage: (next point on previous line)

 000208	  logic [TimerW-1:0] refresh_period;
	
 3337826	  always_comb begin
 1668913	    refresh_period = TimerW'(cfg_refresh_quanta_i) * TimerW'(cfg_quantum_ps_i);
 1668913	    refresh_due = refresh_armed_q && elapsed_ps_i >= 48'(refresh_left_q);
 1668913	    refresh_in_ps_o = refresh_armed_q ? refresh_left_q : '0;
	  end
	
	  // ---------------------------------------------------------- frame sender
 027776	  logic sending_q, send_pause_q;
 003542	  verilator_coverage: (next point on previous line)

 021695	  logic [7:0] send_named_q;
 198514	  logic [BeatW-1:0] send_beat_q;
 232943	  logic [7:0] frame[FrameBytes];
 024410	  logic send_start;
	
 3337826	  always_comb begin
 1668913	    for (int j = 0; j < FrameBytes; j++) frame[j] = 8'd0;
 200269560	    verilator_coverage: (next point on previous line)

 1668913	    for (int j = 0; j < 6; j++) begin
 20026956	    verilator_coverage: (next point on previous line)

 10013478	      frame[j] = PfcDestination[8*(5-j)+:8];
 10013478	      frame[6+j] = cfg_source_mac_i[8*(5-j)+:8];
	    end
 1668913	    {frame[12], frame[13]} = EtherTypeMacControl;
 1668913	    {frame[14], frame[15]} = OpcodePfc;
 1668913	    frame[17] = send_named_q;
 1668913	    for (int p = 0; p < Priorities; p++) begin
 26702608	    verilator_coverage: (next point on previous line)

 13351304	      {frame[18+2*p], frame[19+2*p]} = send_named_q[p] && send_pause_q ? cfg_pause_quanta_i : 16'd0;
	    end
 1668913	    m_tx_valid_o = sending_q;
 1668913	    m_tx_last_o = 32'(send_beat_q) == FrameBeats - 1;
 1668913	    for (int lane = 0; lane < DATA_BYTES; lane++) begin
 69167296	    verilator_coverage: (next point on previous line)

 24895608	      if (32'(send_beat_q) * DATA_BYTES + lane < FrameBytes) begin
 22135844	      verilator_coverage: (next point on previous line)

 12447804	        m_tx_data_o[8*lane+:8] = frame[32'(send_beat_q)*DATA_BYTES+lane];
 12447804	        m_tx_keep_o[lane] = 1'b1;
 22135844	      end else begin
 22135844	        m_tx_data_o[8*lane+:8] = 8'd0;
 22135844	        m_tx_keep_o[lane] = 1'b0;
	      end
	    end
 1668913	    tx_pending_o = sending_q || change_waiting_q || refresh_owed_q;
	    // The next frame starts once the sender is free: a level's change first,
	    // then a refresh owed.
 1668913	    send_start = !sending_q || (m_tx_ready_i && m_tx_last_o);
	  end
	
 572554	  always_ff @(posedge clk_i) begin
 000036	    if (!rst_ni) begin
 286259	    verilator_coverage: (next point on previous line)

 000018	      congested_q <= '0;
 000018	      change_waiting_q <= 1'b0;
 000018	      change_pause_q <= 1'b0;
 000018	      change_named_q <= '0;
 000018	      refresh_armed_q <= 1'b0;
 000018	      refresh_left_q <= '0;
 000018	      refresh_owed_q <= 1'b0;
 000018	      sending_q <= 1'b0;
 000018	      send_pause_q <= 1'b0;
 000018	      send_named_q <= '0;
 000018	      send_beat_q <= '0;
 286259	    end else begin
 286259	      congested_q <= congested_next;
	
	      // The refresh timer: armed when the first priority congests, sent
	      // again while any stays congested, disarmed when none does.
 025176	      if (refresh_due) begin
 012588	        refresh_owed_q <= refresh_owed_q || congested_next != 8'd0;
 012588	        refresh_armed_q <= congested_next != 8'd0;
 012588	        refresh_left_q <= congested_next != 8'd0 ? refresh_period : '0;
 381154	      end else if (refresh_armed_q) begin
 190577	        refresh_left_q <= refresh_left_q - elapsed_ps_i[TimerW-1:0];
 001302	      end else if (congested_q == 8'd0 && congested_next != 8'd0) begin
 082443	      verilator_coverage: (next point on previous line)

 000651	        refresh_armed_q <= 1'b1;
 000651	        refresh_left_q <= refresh_period;
	      end
	
 007036	      if (changing != 8'd0) begin
 282741	      verilator_coverage: (next point on previous line)

 003518	        change_waiting_q <= 1'b1;
 003518	        change_pause_q <= level_pauses;
 003518	        change_named_q <= changing;
	      end
	
 201658	      if (sending_q && m_tx_ready_i) send_beat_q <= send_beat_q + 1'b1;
 185430	      verilator_coverage: (next point on previous line)

 401774	      if (send_start) begin
 085372	      verilator_coverage: (next point on previous line)

 007036	        if (change_waiting_q) begin
 003518	          sending_q <= 1'b1;
 003518	          send_pause_q <= change_pause_q;
 003518	          send_named_q <= change_named_q;
 003518	          send_beat_q <= '0;
 003518	          change_waiting_q <= 1'b0;  // no level is taken while one waits
 023878	        end else if (refresh_owed_q && congested_q != 8'd0) begin
 185430	        verilator_coverage: (next point on previous line)

 011939	          sending_q <= 1'b1;
 011939	          send_pause_q <= 1'b1;
 011939	          send_named_q <= congested_q;
 011939	          send_beat_q <= '0;
 011939	          refresh_owed_q <= refresh_due && congested_next != 8'd0;
 185430	        end else begin
 185430	          sending_q <= 1'b0;
	          // A refresh owed with nothing congested any more is dropped.
 345684	          if (!refresh_due) refresh_owed_q <= 1'b0;
 012588	          verilator_coverage: (next point on previous line)

	        end
	      end
	    end
	  end
	
	  // Unused: the reserved upper byte of a received class-enable vector.
 003634	  logic unused;
	  assign unused = ^header_now[16];
	
	endmodule
	
	`resetall
	
