; ModuleID = 'numba_ext'
source_filename = "numba_ext"
target triple = "nvptx64-nvidia-cuda"

@local_barrier_local2 = internal addrspace(3) global [16 x float] poison, align 16

define ptx_kernel void @local_barrier(ptr addrspace(1) %a, i64 %0, i64 %1, i64 %2, ptr addrspace(1) %out, i64 %3, i64 %4, i64 %5) {
entry:
  %l0 = alloca i64, align 8
  %l1 = alloca i64, align 8
  %l2 = alloca i64, align 8
  %l3 = alloca i64, align 8
  %l4 = alloca float, align 4
  %l5 = alloca i64, align 8
  %l6 = alloca i64, align 8
  %l7 = alloca i64, align 8
  %l8 = alloca i64, align 8
  %l9 = alloca float, align 4
  %l10 = alloca i64, align 8
  %l11 = alloca i64, align 8
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
  store i64 %gid, ptr %l0, align 4
  %tid3 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z4 = zext i32 %tid3 to i64
  store i64 %z4, ptr %l1, align 4
  store i64 %1, ptr %l2, align 4
  %v = load i64, ptr %l0, align 4
  store i64 %v, ptr %l3, align 4
  %v5 = load i64, ptr %l3, align 4
  %t = mul i64 %v5, 4
  %off = add i64 %0, %t
  %p = getelementptr i8, ptr addrspace(1) %a, i64 %off
  %ld = load float, ptr addrspace(1) %p, align 4
  store float %ld, ptr %l4, align 4
  %v6 = load i64, ptr %l1, align 4
  store i64 %v6, ptr %l5, align 4
  %v7 = load i64, ptr %l5, align 4
  %t8 = mul i64 %v7, 1
  %lin = add i64 0, %t8
  %p9 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin
  %v10 = load float, ptr %l4, align 4
  store float %v10, ptr addrspace(3) %p9, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  store i64 15, ptr %l6, align 4
  %v11 = load i64, ptr %l6, align 4
  %v12 = load i64, ptr %l1, align 4
  %sub = sub i64 %v11, %v12
  store i64 %sub, ptr %l7, align 4
  %v13 = load i64, ptr %l7, align 4
  %neg = icmp slt i64 %v13, 0
  %wrapped = add i64 %v13, 16
  %idx = select i1 %neg, i64 %wrapped, i64 %v13
  store i64 %idx, ptr %l8, align 4
  %v14 = load i64, ptr %l8, align 4
  %t15 = mul i64 %v14, 1
  %lin16 = add i64 0, %t15
  %p17 = getelementptr float, ptr addrspace(3) @local_barrier_local2, i64 %lin16
  %ld18 = load float, ptr addrspace(3) %p17, align 4
  store float %ld18, ptr %l9, align 4
  store i64 %4, ptr %l10, align 4
  %v19 = load i64, ptr %l0, align 4
  store i64 %v19, ptr %l11, align 4
  %v20 = load i64, ptr %l11, align 4
  %t21 = mul i64 %v20, 4
  %off22 = add i64 %3, %t21
  %p23 = getelementptr i8, ptr addrspace(1) %out, i64 %off22
  %v24 = load float, ptr %l9, align 4
  store float %v24, ptr addrspace(1) %p23, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #0

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1

attributes #0 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #1 = { convergent nocallback nounwind }
