// A simulation model of the ECP5 block RAM, DP16KD, for the netlist tests: Yosys ships the
// primitive as a blackbox (share/ecp5/cells_sim.v), so this model stands in for it. Read-only
// subset: what synth_ecp5 makes of a ROM (no writes, NOREG outputs, synchronous reset), at any
// data width. Written from Lattice's memory organisation (TN1264): the 16 Kbit array is 1,024
// rows of 18 bits, INITVAL_xx holds rows 16xx .. 16xx + 15, each in 20 bits; a x1/x2/x4 port
// uses the 16 data bits of a row (bits 8 and 17 are parity), a x9 port half a row, x18 a
// row, and x36 (port B reading, port A writing) two rows: DOA the even one, DOB the odd one.
// Address bits below the width's word size are ignored (x4 reads ADx13..ADx2).
(* keep_hierarchy = 0 *)
module DP16KD(
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input CEA, OCEA, CLKA, WEA, RSTA,
  input CSA2, CSA1, CSA0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input CEB, OCEB, CLKB, WEB, RSTB,
  input CSB2, CSB1, CSB0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter CLKAMUX = "CLKA";
  parameter CLKBMUX = "CLKB";
  parameter GSR = "ENABLED";
  parameter WID = 0;
  parameter INITVAL_00 = 320'h0;
  parameter INITVAL_01 = 320'h0;
  parameter INITVAL_02 = 320'h0;
  parameter INITVAL_03 = 320'h0;
  parameter INITVAL_04 = 320'h0;
  parameter INITVAL_05 = 320'h0;
  parameter INITVAL_06 = 320'h0;
  parameter INITVAL_07 = 320'h0;
  parameter INITVAL_08 = 320'h0;
  parameter INITVAL_09 = 320'h0;
  parameter INITVAL_0A = 320'h0;
  parameter INITVAL_0B = 320'h0;
  parameter INITVAL_0C = 320'h0;
  parameter INITVAL_0D = 320'h0;
  parameter INITVAL_0E = 320'h0;
  parameter INITVAL_0F = 320'h0;
  parameter INITVAL_10 = 320'h0;
  parameter INITVAL_11 = 320'h0;
  parameter INITVAL_12 = 320'h0;
  parameter INITVAL_13 = 320'h0;
  parameter INITVAL_14 = 320'h0;
  parameter INITVAL_15 = 320'h0;
  parameter INITVAL_16 = 320'h0;
  parameter INITVAL_17 = 320'h0;
  parameter INITVAL_18 = 320'h0;
  parameter INITVAL_19 = 320'h0;
  parameter INITVAL_1A = 320'h0;
  parameter INITVAL_1B = 320'h0;
  parameter INITVAL_1C = 320'h0;
  parameter INITVAL_1D = 320'h0;
  parameter INITVAL_1E = 320'h0;
  parameter INITVAL_1F = 320'h0;
  parameter INITVAL_20 = 320'h0;
  parameter INITVAL_21 = 320'h0;
  parameter INITVAL_22 = 320'h0;
  parameter INITVAL_23 = 320'h0;
  parameter INITVAL_24 = 320'h0;
  parameter INITVAL_25 = 320'h0;
  parameter INITVAL_26 = 320'h0;
  parameter INITVAL_27 = 320'h0;
  parameter INITVAL_28 = 320'h0;
  parameter INITVAL_29 = 320'h0;
  parameter INITVAL_2A = 320'h0;
  parameter INITVAL_2B = 320'h0;
  parameter INITVAL_2C = 320'h0;
  parameter INITVAL_2D = 320'h0;
  parameter INITVAL_2E = 320'h0;
  parameter INITVAL_2F = 320'h0;
  parameter INITVAL_30 = 320'h0;
  parameter INITVAL_31 = 320'h0;
  parameter INITVAL_32 = 320'h0;
  parameter INITVAL_33 = 320'h0;
  parameter INITVAL_34 = 320'h0;
  parameter INITVAL_35 = 320'h0;
  parameter INITVAL_36 = 320'h0;
  parameter INITVAL_37 = 320'h0;
  parameter INITVAL_38 = 320'h0;
  parameter INITVAL_39 = 320'h0;
  parameter INITVAL_3A = 320'h0;
  parameter INITVAL_3B = 320'h0;
  parameter INITVAL_3C = 320'h0;
  parameter INITVAL_3D = 320'h0;
  parameter INITVAL_3E = 320'h0;
  parameter INITVAL_3F = 320'h0;

  function [319:0] initval(input integer idx);
    case (idx)
      0: initval = INITVAL_00;
      1: initval = INITVAL_01;
      2: initval = INITVAL_02;
      3: initval = INITVAL_03;
      4: initval = INITVAL_04;
      5: initval = INITVAL_05;
      6: initval = INITVAL_06;
      7: initval = INITVAL_07;
      8: initval = INITVAL_08;
      9: initval = INITVAL_09;
      10: initval = INITVAL_0A;
      11: initval = INITVAL_0B;
      12: initval = INITVAL_0C;
      13: initval = INITVAL_0D;
      14: initval = INITVAL_0E;
      15: initval = INITVAL_0F;
      16: initval = INITVAL_10;
      17: initval = INITVAL_11;
      18: initval = INITVAL_12;
      19: initval = INITVAL_13;
      20: initval = INITVAL_14;
      21: initval = INITVAL_15;
      22: initval = INITVAL_16;
      23: initval = INITVAL_17;
      24: initval = INITVAL_18;
      25: initval = INITVAL_19;
      26: initval = INITVAL_1A;
      27: initval = INITVAL_1B;
      28: initval = INITVAL_1C;
      29: initval = INITVAL_1D;
      30: initval = INITVAL_1E;
      31: initval = INITVAL_1F;
      32: initval = INITVAL_20;
      33: initval = INITVAL_21;
      34: initval = INITVAL_22;
      35: initval = INITVAL_23;
      36: initval = INITVAL_24;
      37: initval = INITVAL_25;
      38: initval = INITVAL_26;
      39: initval = INITVAL_27;
      40: initval = INITVAL_28;
      41: initval = INITVAL_29;
      42: initval = INITVAL_2A;
      43: initval = INITVAL_2B;
      44: initval = INITVAL_2C;
      45: initval = INITVAL_2D;
      46: initval = INITVAL_2E;
      47: initval = INITVAL_2F;
      48: initval = INITVAL_30;
      49: initval = INITVAL_31;
      50: initval = INITVAL_32;
      51: initval = INITVAL_33;
      52: initval = INITVAL_34;
      53: initval = INITVAL_35;
      54: initval = INITVAL_36;
      55: initval = INITVAL_37;
      56: initval = INITVAL_38;
      57: initval = INITVAL_39;
      58: initval = INITVAL_3A;
      59: initval = INITVAL_3B;
      60: initval = INITVAL_3C;
      61: initval = INITVAL_3D;
      62: initval = INITVAL_3E;
      63: initval = INITVAL_3F;
      default: initval = 320'h0;
    endcase
  endfunction

  reg [17:0] rows [0:1023];
  integer r;
  initial
    for (r = 0; r < 1024; r = r + 1)
      rows[r] = initval(r / 16) >> ((r % 16) * 20);

  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};

  // word ``ad`` of a port of ``width`` bits, from the rows
  function [17:0] read(input [13:0] ad, input integer width);
    reg [17:0] row;
    integer k, s, p;
    begin
      read = 18'b0;
      case (width)
        18: read = rows[ad[13:4]];
        9: begin
          row = rows[ad[13:4]];
          read[8:0] = ad[3] ? row[17:9] : row[8:0];
        end
        default: begin  // 1, 2, 4: the row's 16 data bits, parity bits 8 and 17 skipped
          s = (ad >> (width == 4 ? 2 : width == 2 ? 1 : 0)) * width;
          row = rows[s / 16];
          for (k = 0; k < 4; k = k + 1)
            if (k < width) begin
              p = (s + k) % 16;
              read[k] = row[p < 8 ? p : p + 1];
            end
        end
      endcase
    end
  endfunction

  reg [17:0] doa = 18'b0, dob = 18'b0;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;

  generate
    if (DATA_WIDTH_B == 36) begin
      always @(posedge CLKB)
        if (CEB) begin
          if (RSTB) begin
            doa <= 18'b0;
            dob <= 18'b0;
          end else begin
            doa <= rows[{adb[13:5], 1'b0}];
            dob <= rows[{adb[13:5], 1'b1}];
          end
        end
    end else begin
      always @(posedge CLKA)
        if (CEA) doa <= RSTA ? 18'b0 : read(ada, DATA_WIDTH_A);
      always @(posedge CLKB)
        if (CEB) dob <= RSTB ? 18'b0 : read(adb, DATA_WIDTH_B);
    end
  endgenerate
endmodule
