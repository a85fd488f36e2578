// SPDX-License-Identifier: LGPL-2.1-or-later
// Integer ADM's row functions (adm.h) over the vector operations of `Isa`. (work in progress: forwarders)

void adm_dwt_row0(const Plane& src, int i, int16_t* tmp, AdmRow<int16_t> out) { adm_dwt_row_scale0(src, i, tmp, out); }
void adm_dwt_row1(const int16_t* src, ptrdiff_t stride, int w, int h, int i, int32_t* tmp, AdmRow<int32_t> out) {
  adm_dwt_row_scale1(src, stride, w, h, i, tmp, out);
}
void adm_dwt_row23(const int32_t* src, ptrdiff_t stride, int w, int h, int scale, int i, int32_t* tmp,
                   AdmRow<int32_t> out) {
  adm_dwt_row_scale23(src, stride, w, h, scale, i, tmp, out);
}
void adm_decouple0(AdmRow<const int16_t> ref, AdmRow<const int16_t> dist, int left, int right, double g,
                   AdmRow<int16_t> r, AdmRow<int16_t> a) {
  adm_decouple_row_scale0(ref, dist, left, right, g, r, a);
}
void adm_decouple123(AdmRow<const int32_t> ref, AdmRow<const int32_t> dist, int left, int right, double g,
                     AdmRow<int32_t> r, AdmRow<int32_t> a) {
  adm_decouple_row_scale123(ref, dist, left, right, g, r, a);
}
void adm_den0(AdmRow<const int16_t> ref, int left, int right, uint64_t sums[3]) {
  adm_den_row_scale0(ref, left, right, sums);
}
void adm_den123(AdmRow<const int32_t> ref, int left, int right, int scale, int cub, uint64_t sums[3]) {
  adm_den_row_scale123(ref, left, right, scale, cub, sums);
}
void adm_csf0(AdmRow<const int16_t> src, int left, int right, const uint16_t fixed[3], int32_t* f, int32_t* c) {
  adm_csf_row_scale0(src, left, right, fixed, f, c);
}
void adm_csf123(AdmRow<const int32_t> src, int left, int right, const uint32_t fixed[3], int32_t* f, int32_t* c) {
  adm_csf_row_scale123(src, left, right, fixed, f, c);
}
void adm_cm0(AdmRow<const int16_t> x, const int32_t* const f[3], const int32_t* c, int w, int left, int right,
             const uint16_t fixed[3], int cub_hv, int cub_d, int64_t sums[3]) {
  adm_cm_row_scale0(x, f, c, w, left, right, fixed, cub_hv, cub_d, sums);
}
void adm_cm123(AdmRow<const int32_t> x, const int32_t* const f[3], const int32_t* c, int w, int left, int right,
               const uint32_t fixed[3], int cub, int64_t sums[3]) {
  adm_cm_row_scale123(x, f, c, w, left, right, fixed, cub, sums);
}
