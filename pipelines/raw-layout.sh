# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the pipeline scripts: raw_layout FORMAT WIDTH HEIGHT sets RAW_PARSE to a rawvideoparse element with
# the plane strides and offsets of a tightly packed raw file (GStreamer's own default rounds strides up to 4 bytes,
# which is not how .yuv files of odd widths are stored).
raw_layout() {
  local fmt w h bps planes sub_x sub_y cw ch ys cs o1 o2 size
  fmt="$(echo "$1" | tr '[:lower:]' '[:upper:]')" w="$2" h="$3"
  case "$fmt" in
    I420|YV12)                    bps=1 planes=3 sub_x=1 sub_y=1 ;;
    NV12|NV21)                    bps=1 planes=2 sub_x=1 sub_y=1 ;;
    Y42B)                         bps=1 planes=3 sub_x=1 sub_y=0 ;;
    Y444)                         bps=1 planes=3 sub_x=0 sub_y=0 ;;
    GRAY8)                        bps=1 planes=1 sub_x=0 sub_y=0 ;;
    I420_10LE|I420_12LE)          bps=2 planes=3 sub_x=1 sub_y=1 ;;
    I422_10LE|I422_12LE)          bps=2 planes=3 sub_x=1 sub_y=0 ;;
    Y444_10LE|Y444_12LE)          bps=2 planes=3 sub_x=0 sub_y=0 ;;
    P010_10LE|P016_LE)            bps=2 planes=2 sub_x=1 sub_y=1 ;;
    GRAY16_LE)                    bps=2 planes=1 sub_x=0 sub_y=0 ;;
    *) echo "unsupported format '$1' (I420 YV12 NV12 NV21 Y42B Y444 GRAY8 I420_10LE I422_10LE Y444_10LE" \
            "I420_12LE I422_12LE Y444_12LE P010_10LE P016_LE GRAY16_LE)" >&2
       return 1 ;;
  esac
  cw=$(( sub_x ? (w + 1) / 2 : w )) ch=$(( sub_y ? (h + 1) / 2 : h ))
  ys=$(( w * bps )) o1=$(( ys * h ))
  case $planes in
    1) RAW_STRIDES="<$ys>" RAW_OFFSETS="<0>" size=$o1 ;;
    2) cs=$(( 2 * cw * bps )); RAW_STRIDES="<$ys,$cs>" RAW_OFFSETS="<0,$o1>" size=$(( o1 + cs * ch )) ;;
    3) cs=$(( cw * bps )) o2=$(( o1 + cs * ch ))
       RAW_STRIDES="<$ys,$cs,$cs>" RAW_OFFSETS="<0,$o1,$o2>" size=$(( o2 + cs * ch )) ;;
  esac
  RAW_FORMAT="$(echo "$fmt" | tr '[:upper:]_' '[:lower:]-')"
  RAW_FRAME_SIZE=$size
  RAW_PARSE="rawvideoparse width=$w height=$h format=$RAW_FORMAT framerate=${FPS:-25/1} plane-strides=$RAW_STRIDES plane-offsets=$RAW_OFFSETS frame-size=$size"
}
