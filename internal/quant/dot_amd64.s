#include "textflag.h"

// func dotAVX2(q *float32, b *byte, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ q+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

loop16:
	CMPQ CX, $16
	JL   tail8
	VCVTPH2PS (DI), Y2
	VCVTPH2PS 16(DI), Y3
	VFMADD231PS (SI), Y2, Y0
	VFMADD231PS 32(SI), Y3, Y1
	ADDQ $32, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JMP  loop16

tail8:
	CMPQ CX, $8
	JL   done
	VCVTPH2PS (DI), Y2
	VFMADD231PS (SI), Y2, Y0

done:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET
