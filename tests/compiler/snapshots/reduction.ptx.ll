; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @reduction(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %acc0, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca i64, align 8
  %l5 = alloca i64, align 8
  %l6 = alloca i1, align 1
  %l7 = alloca double, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca i64, align 8
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
  %l12 = alloca double, align 8
  %l13 = alloca double, align 8
  store i64 %6, ptr %l0, align 4
  store i64 %7, ptr %l1, align 4
  store i64 %8, ptr %l2, align 4
  br label %b0

b0:                                               ; preds = %entry
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %z = zext i32 %ctaid to i64
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %z1 = zext i32 %ntid to i64
  %m = mul i64 %z, %z1
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z2 = zext i32 %tid to i64
  %gid = add i64 %m, %z2
  store i64 %gid, ptr %l3, align 4
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %z3 = zext i32 %nctaid to i64
  %ntid4 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %z5 = zext i32 %ntid4 to i64
  %gs = mul i64 %z3, %z5
  store i64 %gs, ptr %l4, align 4
  %v = load i64, ptr %l3, align 4
  store i64 %v, ptr %l5, align 4
  store double 0.000000e+00, ptr %l7, align 8
  br label %b1

b1:                                               ; preds = %b3, %b0
  %v6 = load i64, ptr %l5, align 4
  %v7 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v6, %v7
  store i1 %cmp, ptr %l6, align 1
  %v8 = load i1, ptr %l6, align 1
  br i1 %v8, label %b2, label %b4

b2:                                               ; preds = %b1
  %v9 = load i64, ptr %l5, align 4
  store i64 %v9, ptr %l9, align 4
  %v10 = load i64, ptr %l9, align 4
  %add = add i64 %v10, 0
  store i64 %add, ptr %l10, align 4
  %v11 = load i64, ptr %l10, align 4
  store i64 %v11, ptr %l11, align 4
  br label %b5

b3:                                               ; preds = %b5
  %v12 = load i64, ptr %l5, align 4
  %v13 = load i64, ptr %l4, align 4
  %add14 = add i64 %v12, %v13
  store i64 %add14, ptr %l5, align 4
  br label %b1

b4:                                               ; preds = %b1
  %off = add i64 %3, 0
  %p = getelementptr i8, ptr addrspace(1) %acc0, i64 %off
  %v15 = load double, ptr %l7, align 8
  %9 = atomicrmw fadd ptr addrspace(1) %p, double %v15 syncscope("device") monotonic, align 8
  ret void

b5:                                               ; preds = %b2
  %v16 = load i64, ptr %l11, align 4
  %t = mul i64 %v16, 8
  %off17 = add i64 %0, %t
  %p18 = getelementptr i8, ptr addrspace(1) %a, i64 %off17
  %ld = load double, ptr addrspace(1) %p18, align 8
  store double %ld, ptr %l12, align 8
  %v19 = load double, ptr %l7, align 8
  %v20 = load double, ptr %l12, align 8
  %add21 = fadd double %v19, %v20
  store double %add21, ptr %l13, align 8
  %v22 = load double, ptr %l13, align 8
  store double %v22, ptr %l7, align 8
  br label %b3
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
