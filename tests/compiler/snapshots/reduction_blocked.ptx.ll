; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @reduction_blocked(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %acc0, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8) {
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
  %l9 = alloca double, align 8
  %l10 = alloca i1, align 1
  %l11 = alloca i64, align 8
  %l12 = alloca i64, align 8
  %l13 = alloca i64, align 8
  %l14 = alloca i64, align 8
  %l15 = alloca double, align 8
  %l16 = alloca double, align 8
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
  %v = load i64, ptr %l2, align 4
  %v6 = load i64, ptr %l4, align 4
  %add = add i64 %v, %v6
  store i64 %add, ptr %l7, align 4
  %v7 = load i64, ptr %l7, align 4
  %sub = sub i64 %v7, 1
  store i64 %sub, ptr %l7, align 4
  %v8 = load i64, ptr %l7, align 4
  %v9 = load i64, ptr %l4, align 4
  %rz = icmp eq i64 %v9, 0
  %safe = select i1 %rz, i64 1, i64 %v9
  %q = sdiv i64 %v8, %safe
  %m10 = srem i64 %v8, %safe
  %nz = icmp ne i64 %m10, 0
  %mneg = icmp slt i64 %m10, 0
  %rneg = icmp slt i64 %safe, 0
  %differ = xor i1 %mneg, %rneg
  %fix = and i1 %nz, %differ
  %q1 = sub i64 %q, 1
  %m1 = add i64 %m10, %safe
  %fq = select i1 %fix, i64 %q1, i64 %q
  %fm = select i1 %fix, i64 %m1, i64 %m10
  %divres = select i1 %rz, i64 0, i64 %fq
  store i64 %divres, ptr %l7, align 4
  %v11 = load i64, ptr %l3, align 4
  %v12 = load i64, ptr %l7, align 4
  %mul = mul i64 %v11, %v12
  store i64 %mul, ptr %l5, align 4
  %v13 = load i64, ptr %l5, align 4
  %v14 = load i64, ptr %l7, align 4
  %add15 = add i64 %v13, %v14
  store i64 %add15, ptr %l8, align 4
  store double 0.000000e+00, ptr %l9, align 8
  br label %b1

b1:                                               ; preds = %b3, %b0
  %v16 = load i64, ptr %l5, align 4
  %v17 = load i64, ptr %l2, align 4
  %cmp = icmp slt i64 %v16, %v17
  store i1 %cmp, ptr %l6, align 1
  %v18 = load i64, ptr %l5, align 4
  %v19 = load i64, ptr %l8, align 4
  %cmp20 = icmp slt i64 %v18, %v19
  store i1 %cmp20, ptr %l10, align 1
  %v21 = load i1, ptr %l6, align 1
  %v22 = load i1, ptr %l10, align 1
  %and = and i1 %v21, %v22
  store i1 %and, ptr %l6, align 1
  %v23 = load i1, ptr %l6, align 1
  br i1 %v23, label %b2, label %b4

b2:                                               ; preds = %b1
  %v24 = load i64, ptr %l5, align 4
  store i64 %v24, ptr %l12, align 4
  %v25 = load i64, ptr %l12, align 4
  %add26 = add i64 %v25, 0
  store i64 %add26, ptr %l13, align 4
  %v27 = load i64, ptr %l13, align 4
  store i64 %v27, ptr %l14, align 4
  br label %b5

b3:                                               ; preds = %b5
  %v28 = load i64, ptr %l5, align 4
  %add29 = add i64 %v28, 1
  store i64 %add29, ptr %l5, align 4
  br label %b1

b4:                                               ; preds = %b1
  %off = add i64 %3, 0
  %p = getelementptr i8, ptr addrspace(1) %acc0, i64 %off
  %v30 = load double, ptr %l9, align 8
  %9 = atomicrmw fadd ptr addrspace(1) %p, double %v30 syncscope("device") monotonic, align 8
  ret void

b5:                                               ; preds = %b2
  %v31 = load i64, ptr %l14, align 4
  %t = mul i64 %v31, 8
  %off32 = add i64 %0, %t
  %p33 = getelementptr i8, ptr addrspace(1) %a, i64 %off32
  %ld = load double, ptr addrspace(1) %p33, align 8
  store double %ld, ptr %l15, align 8
  %v34 = load double, ptr %l9, align 8
  %v35 = load double, ptr %l15, align 8
  %add36 = fadd double %v34, %v35
  store double %add36, ptr %l16, align 8
  %v37 = load double, ptr %l16, align 8
  store double %v37, ptr %l9, align 8
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
