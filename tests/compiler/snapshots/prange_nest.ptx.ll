; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @prange_nest(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, i64 %3, i64 %4, ptr addrspace(1) %out, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, ptr addrspace(1) %w, i64 %10, i64 %11, i64 %12, i64 %13, i64 %14, i64 %15) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca i64, align 8
  %l6 = alloca i1, align 1
  %l7 = alloca i64, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca i64, align 8
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
  %l12 = alloca i64, align 8
  %l13 = alloca i64, align 8
  %l14 = alloca i64, align 8
  %l15 = alloca i1, align 1
  %l16 = alloca i64, align 8
  %l17 = alloca i64, align 8
  %l18 = alloca double, align 8
  %l19 = alloca double, align 8
  %l20 = alloca double, align 8
  %cstride = mul i64 8, %2
  %cstride1 = mul i64 8, %7
  store i64 %13, ptr %l0, align 4
  store i64 %14, ptr %l1, align 4
  store i64 %15, ptr %l2, align 4
  br label %b0

b0:                                               ; preds = %entry
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %z = zext i32 %ctaid to i64
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %z2 = zext i32 %ntid to i64
  %m = mul i64 %z, %z2
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z3 = zext i32 %tid to i64
  %gid = add i64 %m, %z3
  store i64 %gid, ptr %l3, align 4
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %z4 = zext i32 %nctaid to i64
  %ntid5 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %z6 = zext i32 %ntid5 to i64
  %gs = mul i64 %z4, %z6
  store i64 %gs, ptr %l4, align 4
  %v = load i64, ptr %l3, align 4
  store i64 %v, ptr %l5, align 4
  br label %b1

b1:                                               ; preds = %b0
  %v7 = load i64, ptr %l5, align 4
  %v8 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v7, %v8
  store i1 %cmp, ptr %l6, align 1
  %v9 = load i1, ptr %l6, align 1
  br i1 %v9, label %b2, label %b4

b2:                                               ; preds = %b1
  %v10 = load i64, ptr %l5, align 4
  store i64 %v10, ptr %l8, align 4
  %v11 = load i64, ptr %l8, align 4
  %add = add i64 %v11, 0
  store i64 %add, ptr %l9, align 4
  %v12 = load i64, ptr %l9, align 4
  store i64 %v12, ptr %l10, align 4
  br label %b5

b3:                                               ; preds = %b9
  br label %b4

b4:                                               ; preds = %b3, %b1
  ret void

b5:                                               ; preds = %b2
  store i64 %1, ptr %l11, align 4
  store i64 %2, ptr %l12, align 4
  %v13 = load i64, ptr %l12, align 4
  store i64 %v13, ptr %l13, align 4
  store i64 0, ptr %l14, align 4
  br label %b6

b6:                                               ; preds = %b8, %b5
  %v14 = load i64, ptr %l14, align 4
  %v15 = load i64, ptr %l13, align 4
  %cmp16 = icmp slt i64 %v14, %v15
  store i1 %cmp16, ptr %l15, align 1
  %v17 = load i1, ptr %l15, align 1
  br i1 %v17, label %b7, label %b9

b7:                                               ; preds = %b6
  %v18 = load i64, ptr %l14, align 4
  store i64 %v18, ptr %l17, align 4
  %v19 = load i64, ptr %l17, align 4
  store i64 %v19, ptr %l16, align 4
  br label %b10

b8:                                               ; preds = %b10
  %v20 = load i64, ptr %l14, align 4
  %add21 = add i64 %v20, 1
  store i64 %add21, ptr %l14, align 4
  br label %b6

b9:                                               ; preds = %b6
  br label %b3

b10:                                              ; preds = %b7
  %v22 = load i64, ptr %l10, align 4
  %v23 = load i64, ptr %l16, align 4
  %t = mul i64 %v22, %cstride
  %off = add i64 %0, %t
  %t24 = mul i64 %v23, 8
  %off25 = add i64 %off, %t24
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off25
  %ld = load double, ptr addrspace(1) %p, align 8
  store double %ld, ptr %l18, align 8
  %v26 = load i64, ptr %l10, align 4
  %t27 = mul i64 %v26, 8
  %off28 = add i64 %10, %t27
  %p29 = getelementptr i8, ptr addrspace(1) %w, i64 %off28
  %ld30 = load double, ptr addrspace(1) %p29, align 8
  store double %ld30, ptr %l19, align 8
  %v31 = load double, ptr %l18, align 8
  %v32 = load double, ptr %l19, align 8
  %mul = fmul double %v31, %v32
  store double %mul, ptr %l20, align 8
  %v33 = load i64, ptr %l10, align 4
  %v34 = load i64, ptr %l16, align 4
  %t35 = mul i64 %v33, %cstride1
  %off36 = add i64 %5, %t35
  %t37 = mul i64 %v34, 8
  %off38 = add i64 %off36, %t37
  %p39 = getelementptr i8, ptr addrspace(1) %out, i64 %off38
  %v40 = load double, ptr %l20, align 8
  store double %v40, ptr addrspace(1) %p39, align 8
  br label %b8
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #0

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
